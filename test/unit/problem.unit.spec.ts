import { describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from '../../src/storage/errors.js';
import { AppError } from '../../src/errors.js';
import { toProblem } from '../../src/http/problem.js';

describe('problem details', () => {
  describe('when the error is one of ours', () => {
    it('maps the code to its status and keeps the field errors and details', () => {
      const error = new AppError('CONFLICT', 'a template named "x" already exists', {
        errors: [{ field: 'name', message: 'taken' }],
        details: { referrers: [] },
      });
      expect(toProblem(error, 'req-1')).toEqual({
        type: 'urn:infraledger:problem:conflict',
        title: 'Conflict',
        status: 409,
        detail: 'a template named "x" already exists',
        code: 'CONFLICT',
        errors: [{ field: 'name', message: 'taken' }],
        referrers: [],
        requestId: 'req-1',
        // The upstream project's keys for the same two (docs/contract.md §12).
        message: 'a template named "x" already exists',
        error_code: 'CONFLICT',
      });
    });

    it('masks an INTERNAL message', () => {
      expect(toProblem(new AppError('INTERNAL', 'decrypt failed for key abc'))).toMatchObject({
        status: 500,
        detail: 'An unexpected error occurred; it has been logged.',
      });
    });
  });

  describe('when the error is unexpected', () => {
    it('answers a masked 500 that leaks no message, SQL or stack', () => {
      const problem = toProblem(new Error('syntax error at or near "SELEC" in SELECT * FROM users'));
      expect(problem).toEqual({
        type: 'about:blank',
        title: 'Internal error',
        status: 500,
        detail: 'An unexpected error occurred; it has been logged.',
        code: 'INTERNAL',
        requestId: undefined,
        message: 'An unexpected error occurred; it has been logged.',
        error_code: 'INTERNAL',
      });
    });
  });

  describe('when the database is unreachable', () => {
    it('answers 503 rather than 500', () => {
      const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      expect(toProblem(lost)).toMatchObject({ status: 503, code: 'UNAVAILABLE', detail: 'the database is unavailable; try again shortly' });
    });

    it('recognises driver and SQLSTATE failures, but not an error that merely says "closed"', () => {
      expect(isTransientDatabaseError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
      expect(isTransientDatabaseError(Object.assign(new Error('x'), { code: '40001' }))).toBe(true);
      expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
      expect(isTransientDatabaseError(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
      expect(
        isTransientDatabaseError(Object.assign(new Error('database "x" is not currently accepting connections'), { code: '55000' })),
      ).toBe(true);
      expect(isTransientDatabaseError(Object.assign(new Error('cannot drop the currently open database'), { code: '55000' }))).toBe(false);
      expect(isTransientDatabaseError(new Error('the account is closed'))).toBe(false);
      expect(isTransientDatabaseError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    });
  });

  describe('when Fastify refuses the request itself', () => {
    it('keeps 415 for an unsupported media type', () => {
      const error = Object.assign(new Error('Unsupported Media Type: text/plain'), {
        statusCode: 415,
        code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
      });
      expect(toProblem(error)).toMatchObject({ status: 415, title: 'Unsupported media type', code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('says the body is not valid JSON', () => {
      const error = Object.assign(new Error("Body is not valid JSON but content-type is set to 'application/json'"), {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      });
      expect(toProblem(error)).toMatchObject({ status: 400, detail: expect.stringMatching(/^the body is not valid JSON/) as unknown });
    });
  });
});
