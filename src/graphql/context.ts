import type { FastifyRequest } from 'fastify';
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
