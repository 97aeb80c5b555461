import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

/** A logger at `info` writing into memory, and the lines it wrote so far (parsed). */
function capture() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const log = createLogger({ level: 'info', destination });
  const text = (): string => chunks.join('');
  const lines = (): Record<string, unknown>[] =>
    text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, text, lines };
}

// Distinctive values, so a leak anywhere in the output is found by a plain substring search.
const RAW = {
  authorization: 'Bearer raw-authorization-value',
  cookie: 'sid=raw-cookie-value',
  password: 'raw-password-value',
  token: 'raw-token-value',
  secret: 'raw-secret-value',
  clientSecret: 'raw-client-secret-value',
} as const;
const REDACTED = {
  authorization: '[redacted]',
  cookie: '[redacted]',
  password: '[redacted]',
  token: '[redacted]',
  secret: '[redacted]',
  clientSecret: '[redacted]',
};

describe('log redaction', () => {
  describe('when sensitive fields are logged at the top level', () => {
    it('writes each as [redacted] and never the raw value', () => {
      const { log, text, lines } = capture();
      log.info({ ...RAW, streamId: 'template-1' }, 'top level');
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).toMatchObject({ ...REDACTED, streamId: 'template-1', msg: 'top level', name: 'infraledger' });
      for (const value of Object.values(RAW)) expect(text()).not.toContain(value);
    });
  });

  describe('when sensitive fields are logged one level down', () => {
    it('writes each as [redacted] inside any object and never the raw value', () => {
      const { log, text, lines } = capture();
      log.info(
        { headers: { ...RAW, accept: 'application/json' }, configuration: { ...RAW, clientId: 'visible-client-id' } },
        'one level down',
      );
      expect(lines()[0]).toMatchObject({
        headers: { ...REDACTED, accept: 'application/json' },
        configuration: { ...REDACTED, clientId: 'visible-client-id' },
      });
      for (const value of Object.values(RAW)) expect(text()).not.toContain(value);
    });
  });

  describe('when a request with credentials is logged', () => {
    it('redacts the authorization and cookie headers of req and the set-cookie header of res', () => {
      const { log, text, lines } = capture();
      log.info(
        {
          req: {
            method: 'GET',
            url: '/api/templates',
            headers: { authorization: RAW.authorization, cookie: RAW.cookie, 'set-cookie': 'raw-set-cookie-request' },
          },
          res: { statusCode: 200, headers: { 'set-cookie': 'session=raw-set-cookie-value' } },
        },
        'request completed',
      );
      expect(lines()[0]).toMatchObject({
        req: {
          method: 'GET',
          url: '/api/templates',
          headers: { authorization: '[redacted]', cookie: '[redacted]', 'set-cookie': '[redacted]' },
        },
        res: { statusCode: 200, headers: { 'set-cookie': '[redacted]' } },
      });
      expect(text()).not.toContain('raw-authorization-value');
      expect(text()).not.toContain('raw-cookie-value');
      expect(text()).not.toContain('raw-set-cookie');
    });
  });

  describe('when a child logger carries sensitive bindings', () => {
    it('redacts them in every line the child writes', () => {
      const { log, text, lines } = capture();
      log.child({ token: RAW.token, user: { password: RAW.password } }).info('from a child');
      expect(lines()[0]).toMatchObject({ token: '[redacted]', user: { password: '[redacted]' }, msg: 'from a child' });
      expect(text()).not.toContain(RAW.token);
      expect(text()).not.toContain(RAW.password);
    });
  });

  describe('when nothing sensitive is logged', () => {
    it('leaves ordinary fields as they are', () => {
      const { log, lines } = capture();
      log.info({ streamId: 'template-1', position: '42', user: { name: 'jane' } }, 'projection caught up');
      expect(lines()[0]).toMatchObject({ streamId: 'template-1', position: '42', user: { name: 'jane' }, msg: 'projection caught up' });
    });
  });
});
