import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { requestLoggerFactory } from '../../src/http/request-logger.js';
import { createLogger } from '../../src/log.js';

/** A Fastify app logging through the service's logger at `level` into memory, with the lazy request logger. */
function appAt(level: string, requestLogging = false) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const log = createLogger({ level, destination });
  const app = Fastify({
    loggerInstance: log,
    childLoggerFactory: requestLoggerFactory(),
    disableRequestLogging: !requestLogging,
    genReqId: () => 'request-7',
  });
  const lines = (): Record<string, unknown>[] =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const text = (): string => chunks.join('');
  return { app, lines, text };
}

describe('request logger (made on its first line at an enabled level)', () => {
  it('writes lines at enabled levels with the request id, and redacts them as the service logger does', async () => {
    const { app, lines } = appAt('info');
    app.get('/', (request) => {
      request.log.info({ password: 'raw-password-value', entity: 'template' }, 'handled');
      request.log.debug('below the level');
      return { ok: true };
    });
    const answer = await app.inject({ method: 'GET', url: '/' });
    expect(answer.statusCode).toBe(200);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, msg: 'handled', password: '[redacted]', entity: 'template', reqId: 'request-7' }),
    ]);
    await app.close();
  });

  it('writes nothing below the level, and a child of the request logger keeps the request id', async () => {
    const { app, lines } = appAt('warn');
    app.get('/', (request) => {
      request.log.info('not written');
      expect(request.log.level).toBe('warn');
      request.log.child({ part: 'inner' }).warn('written by a child');
      return { ok: true };
    });
    await app.inject({ method: 'GET', url: '/' });
    expect(lines()).toEqual([expect.objectContaining({ level: 40, msg: 'written by a child', part: 'inner', reqId: 'request-7' })]);
    await app.close();
  });

  it('follows a level changed on the request logger itself', async () => {
    const { app, lines } = appAt('warn');
    app.get('/', (request) => {
      request.log.level = 'debug';
      request.log.debug('now written');
      return { ok: true };
    });
    await app.inject({ method: 'GET', url: '/' });
    expect(lines()).toEqual([expect.objectContaining({ level: 20, msg: 'now written' })]);
    await app.close();
  });

  it("writes Fastify's own request lines through its serializers: method and url, never a header", async () => {
    const { app, lines, text } = appAt('info', true);
    app.get('/things', () => ({ ok: true }));
    await app.inject({ method: 'GET', url: '/things', headers: { authorization: 'Bearer raw-token-value', cookie: 'sid=raw-cookie' } });
    const [received, answered] = lines();
    expect(received).toMatchObject({ msg: 'incoming request', reqId: 'request-7', req: { method: 'GET', url: '/things' } });
    // Fastify's serializer: a raw request (its headers, its socket) never reaches a line.
    expect(received?.req).not.toHaveProperty('raw');
    expect(received?.req).not.toHaveProperty('headers');
    expect(answered).toMatchObject({ msg: 'request completed', reqId: 'request-7', res: { statusCode: 200 } });
    expect(text()).not.toContain('raw-token-value');
    expect(text()).not.toContain('raw-cookie');
    await app.close();
  });
});
