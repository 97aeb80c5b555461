import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Principal } from '../model/principal.js';
import type { Services } from '../services.js';
import type { Speculation } from './speculation.js';

/** What every resolver receives (Mercurius adds `reply` and `app`). */
export interface GraphContext {
  readonly services: Services;
  readonly request: FastifyRequest;
  /** Set before execution for every operation that is not public (plugin.ts, `authenticate`). */
  principal?: Principal;
  /** Set when `principal` is recalled, not yet read this request (./speculation.ts). */
  speculation?: Speculation;
}

/** A root field's resolver that needs only its arguments and the context. */
export type FieldResolver = (root: unknown, args: Record<string, unknown>, context: GraphContext) => Promise<unknown>;

/** The signed-in caller, or the seed's UNAUTHENTICATED answer for a field that needs one. */
export function principalOf(context: GraphContext): Principal {
  if (!context.principal)
    throw new AppError('UNAUTHENTICATED', 'Not authenticated. Please provide a valid bearer token in the Authorization header.');
  return context.principal;
}
