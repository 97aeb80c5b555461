import { isDeepStrictEqual } from 'node:util';
import type { FastifyRequest } from 'fastify';
import { samePrincipal, type RecalledWriter } from '../auth/authenticator.js';
import { AppError } from '../errors.js';
import { AppendConditionError, type AppendCondition } from '../events/store/port.js';
import type { Principal } from '../model/principal.js';
import { setPrincipal } from './authorize.js';

/**
 * A REST write started for a recalled caller (Authenticator.recallWriter): the caller as this replica
 * last read their session, unconfirmed until an append carrying `condition` commits. The session is
 * then checked inside the write's own append statement instead of in a statement of its own before
 * it (docs/decisions/0003-speculative-session-check.md). A route that recalls its writer runs every
 * command with `commandContext(request)` (as `runCommand` does), so every append carries the
 * condition until one commits, and writes nothing outside the event log before confirmation.
 */
interface RecalledWrite {
  readonly header: string;
  readonly principal: Principal;
  readonly condition: AppendCondition;
  confirmed: boolean;
}

const writes = new WeakMap<FastifyRequest, RecalledWrite>();

/** Starts the request from a recalled writer: its principal is set, unconfirmed. */
export function startRecalledWrite(request: FastifyRequest, header: string, recalled: RecalledWriter): void {
  setPrincipal(request, recalled.principal);
  writes.set(request, { header, principal: recalled.principal, condition: recalled.condition, confirmed: false });
}

/** The condition the request's appends carry while its caller is unconfirmed (src/edge/context.ts). */
export function appendConditionOf(request: FastifyRequest): AppendCondition | undefined {
  const write = writes.get(request);
  return write && !write.confirmed ? write.condition : undefined;
}

/** An append carrying the request's condition committed: the caller was as recalled when it did. */
export function confirmWriter(request: FastifyRequest): void {
  const write = writes.get(request);
  if (write) write.confirmed = true;
}

/** Whether the request's caller was recalled and is not confirmed yet (the error handler's question). */
export const awaitsConfirmation = (request: FastifyRequest): boolean => writes.get(request)?.confirmed === false;

/**
 * Confirms the request's caller by reading the session as every other request does (`authenticate`
 * throws UNAUTHENTICATED when it is refused): from then on the request runs for the caller as they
 * are now. Answers whether they are the caller as recalled (the same roles, permissions and teams).
 */
export async function confirmByLookup(request: FastifyRequest, authenticate: (header: string) => Promise<Principal>): Promise<boolean> {
  const write = writes.get(request);
  if (!write || write.confirmed) return true;
  const principal = await authenticate(write.header);
  write.confirmed = true;
  setPrincipal(request, principal);
  return samePrincipal(principal, write.principal) && isDeepStrictEqual(principal.teams, write.principal.teams);
}

/**
 * Runs a REST write (`run`, which reads the caller with `authorize`) and confirms the caller before
 * its outcome is answered. An append carrying the condition confirms them. Otherwise (the condition
 * failed, or nothing was appended: a refusal, a bad body, a no-op) the session is read: refused →
 * UNAUTHENTICATED with the reason, whatever the write did; the same caller → the outcome stands (it
 * depended only on who asked, and nothing was written for anyone else); a changed caller, or a
 * failed condition → the write runs again for the caller as they are now.
 */
export async function confirmedWrite<T>(
  request: FastifyRequest,
  authenticate: (header: string) => Promise<Principal>,
  run: () => Promise<T>,
): Promise<T> {
  if (!awaitsConfirmation(request)) return run();
  let outcome: { readonly value: T } | { readonly error: unknown };
  try {
    outcome = { value: await run() };
  } catch (error) {
    outcome = { error };
  }
  if (!awaitsConfirmation(request)) return settled(outcome);
  const same = await confirmByLookup(request, authenticate).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'UNAUTHENTICATED')
      request.log.info({ reason: error.message }, 'recalled writer refused after the write ran: nothing was written, answer withheld');
    throw error;
  });
  const conditionFailed = 'error' in outcome && outcome.error instanceof AppendConditionError;
  if (same && !conditionFailed) return settled(outcome);
  request.log.debug(
    { conditionFailed, sameCaller: same },
    'the recalled caller changed; the write runs again for the caller as they are now',
  );
  return run();
}

const settled = <T>(outcome: { readonly value: T } | { readonly error: unknown }): T => {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
};
