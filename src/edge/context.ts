import type { FastifyRequest } from 'fastify';
import type { ExecuteOptions } from '../commands/handler.js';
import { principalOf } from './authorize.js';
import { appendConditionOf } from './recalled-writes.js';

/** Who is acting: the signed-in user, or nobody (public routes such as sign-in). */
export interface Actor {
  readonly id: string | null;
}

const CORRELATION = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The prefix of the correlation ids the service derives for idempotent writes (edge/idempotency.ts):
 * a client's header may not use it, or it could plant events under the id of another caller's key,
 * and that caller's retry would answer from them.
 */
export const DERIVED_CORRELATION_PREFIX = 'idem-';

/** The client's X-Correlation-Id when it is well formed and not one the service derives. */
const clientCorrelation = (header: unknown): string | undefined =>
  typeof header === 'string' && CORRELATION.test(header) && !header.toLowerCase().startsWith(DERIVED_CORRELATION_PREFIX)
    ? header
    : undefined;

/** Correlation ids the service chose for a request (idempotent writes), over the client's header. */
const chosenCorrelation = new WeakMap<FastifyRequest, string>();

/** Makes every event of this request carry `correlationId` (see edge/idempotency.ts). */
export function setCorrelationId(request: FastifyRequest, correlationId: string): void {
  chosenCorrelation.set(request, correlationId);
}

/**
 * The metadata a command run from this request carries, and, while the caller is a recalled writer
 * not yet confirmed (./recalled-writes.ts), the condition its append checks.
 */
export function commandContext(request: FastifyRequest, now: Date): ExecuteOptions {
  const correlationId = chosenCorrelation.get(request) ?? clientCorrelation(request.headers['x-correlation-id']) ?? request.id;
  const condition = appendConditionOf(request);
  return { actorId: actorOf(request).id, correlationId, causationId: request.id, now, ...(condition && { condition }) };
}

/** Who is acting on a request, for event metadata. */
export function actorOf(request: FastifyRequest): Actor {
  return { id: principalOf(request)?.userId ?? null };
}
