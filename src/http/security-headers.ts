import type { FastifyInstance } from 'fastify';

/** One year: how long a browser keeps to https once it has seen the header. */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff` (a JSON or text answer is never
 * sniffed into HTML or script), and, when the service is public over https (`BASE_URL`),
 * `Strict-Transport-Security`, so a browser that has reached it once never tries plain http again.
 * No `includeSubDomains`: other services may share the parent domain, and that is not ours to decide.
 */
export function registerSecurityHeaders(app: FastifyInstance, baseUrl: string): void {
  const hsts = baseUrl.startsWith('https://') ? `max-age=${HSTS_MAX_AGE_SECONDS}` : undefined;
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    if (hsts) void reply.header('Strict-Transport-Security', hsts);
    done(null, payload);
  });
}
