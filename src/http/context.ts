import type { FastifyRequest } from 'fastify';
import type { ExecuteOptions } from '../commands/handler.js';

/**
 * Who is acting. Until sign-in exists (the identity issue) every request is anonymous; routes read
 * the actor only through this function, so authentication plugs in here without touching them.
 */
export interface Actor {
  readonly id: string | null;
}

const CORRELATION = /^[A-Za-z0-9._:-]{1,128}$/;

/** The metadata a command run from this request carries. */
export function commandContext(request: FastifyRequest, now: Date): ExecuteOptions {
  const header = request.headers['x-correlation-id'];
  const correlationId = typeof header === 'string' && CORRELATION.test(header) ? header : request.id;
  return { actorId: actorOf(request).id, correlationId, causationId: request.id, now };
}

export function actorOf(request: FastifyRequest): Actor {
  return (request as FastifyRequest & { actor?: Actor }).actor ?? { id: null };
}
