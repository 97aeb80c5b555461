import type { FastifyInstance, FastifyRequest } from 'fastify';

/** One year: how long a browser keeps to https once it has seen the header. */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/**
 * Headers every answer carries: `X-Request-Id` (the caller's, when well formed, else ours: the log's
 * `requestId`), `X-Content-Type-Options: nosniff` (a JSON or text answer is never sniffed into HTML
 * or script), and, when the service is public over https (`BASE_URL`), `Strict-Transport-Security`,
 * so a browser that has reached it once never tries plain http again. No `includeSubDomains`: other
 * services may share the parent domain, and that is not ours to decide. A route that writes its
 * answer itself (the MCP server) sets them from here too.
 */
export function everyAnswerHeaders(request: FastifyRequest, baseUrl: string): Record<string, string> {
  const hsts = hstsOf(baseUrl);
  return {
    'X-Request-Id': request.id,
    'X-Content-Type-Options': 'nosniff',
    ...(hsts !== undefined && { 'Strict-Transport-Security': hsts }),
  };
}

/** `Strict-Transport-Security` when the service is public over https. */
const hstsOf = (baseUrl: string): string | undefined => (baseUrl.startsWith('https://') ? `max-age=${HSTS_MAX_AGE_SECONDS}` : undefined);

/** Gives every answer `everyAnswerHeaders`: one callback hook (an async one costs a promise and a turn each), nothing allocated. */
export function registerSecurityHeaders(app: FastifyInstance, baseUrl: string): void {
  const hsts = hstsOf(baseUrl);
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('X-Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
    if (hsts !== undefined) void reply.header('Strict-Transport-Security', hsts);
    done(null, payload);
  });
}
