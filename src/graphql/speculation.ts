import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { CompiledQuery } from 'kysely';
import { samePrincipal, sessionGuardSql, type Recalled, type SessionGuard } from '../auth/authenticator.js';
import type { Principal } from '../model/principal.js';
import { AppError } from '../errors.js';
import { Lru } from '../lru.js';

/**
 * A request answered for a recalled caller (Authenticator.recall): its service token's session as
 * this replica last read it, used before the session is read again. Authentication is otherwise a
 * statement of its own on every request; here the first statement that returns rows also checks
 * the session (`guarded`), so a request usually costs one round trip instead of two. Nothing is
 * answered until the caller is confirmed (`settle`), so docs/contract.md §5's "a revocation takes effect on the
 * next request" holds as before.
 */
export interface Speculation {
  readonly header: string;
  readonly principal: Principal;
  readonly guard: SessionGuard;
  /** pending: no guarded statement has returned rows yet; doubted: one saw the session changed. */
  state: 'pending' | 'confirmed' | 'doubted';
}

/** The column a guarded statement adds: whether the session still looks as remembered. */
const GUARD_COLUMN = '__session_unchanged';

/** A select list the check can lead (`select distinct` would make it part of the distinct rows). */
const PLAIN_SELECT = /^select (?!distinct )/;

/**
 * Guarded texts by statement text (whose placeholders fix where the guard's parameters start). The
 * same text object on every request keeps its hash, where a text built per request would be hashed
 * whole again by every map that looks it up (the prepared-statement names among them); the statement
 * texts themselves are compiled once per document shape, so this lookup hashes nothing new either.
 */
const guardedTexts = new Lru<string, string>(1000);

/** Starts a request from a remembered caller, to be confirmed by its first statement. */
export function speculate(header: string, recalled: Recalled): Speculation {
  return { header, principal: recalled.principal, guard: recalled.guard, state: 'pending' };
}

/**
 * The statement with the session check as its first column, while the caller is unconfirmed;
 * otherwise the statement itself. Only a plain `select` is guarded (what Kysely compiles from
 * selectFrom); anything else leaves the caller pending, to be confirmed by `settle`.
 */
export function guarded<R>(compiled: CompiledQuery<R>, speculation: Speculation | undefined): CompiledQuery<R> {
  if (speculation?.state !== 'pending' || !PLAIN_SELECT.test(compiled.sql)) return compiled;
  const first = compiled.parameters.length + 1;
  let text = guardedTexts.get(compiled.sql);
  if (text === undefined) {
    text = `select ${sessionGuardSql(first)} as "${GUARD_COLUMN}", ${compiled.sql.slice('select '.length)}`;
    guardedTexts.set(compiled.sql, text);
  }
  return { ...compiled, sql: text, parameters: [...compiled.parameters, speculation.guard.sessionId, speculation.guard.fingerprint] };
}

/** Records what a guarded statement's rows say of the session (an empty answer says nothing). */
export function noteGuard(rows: readonly Record<string, unknown>[], speculation: Speculation | undefined): void {
  const first = rows[0];
  if (speculation?.state !== 'pending' || first === undefined || !(GUARD_COLUMN in first)) return;
  speculation.state = first[GUARD_COLUMN] === true ? 'confirmed' : 'doubted';
}

/** What re-running an operation needs (kept by the preExecution hook). */
export interface Operation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

/** What `settle` decided: answer as executed, refuse, or execute again for the caller as they are now. */
export type Settled =
  | { readonly outcome: 'answer' }
  | { readonly outcome: 'refuse'; readonly error: AppError }
  | { readonly outcome: 'rerun'; readonly principal: Principal };

/**
 * After execution, before answering: a confirmed caller is answered. Otherwise the session is read
 * as on every request without a recall (`authenticate`): refused → the request is refused as
 * before; the same caller → the answer stands (the data depended only on who asked); a changed
 * caller (new roles or grants) → the operation is executed again for them.
 */
export async function settle(speculation: Speculation, authenticate: (header: string) => Promise<Principal>): Promise<Settled> {
  if (speculation.state === 'confirmed') return { outcome: 'answer' };
  let principal: Principal;
  try {
    principal = await authenticate(speculation.header);
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHENTICATED') return { outcome: 'refuse', error };
    throw error;
  }
  return samePrincipal(principal, speculation.principal) ? { outcome: 'answer' } : { outcome: 'rerun', principal };
}

/** Executes an operation again (graphql-js, not the JIT: this is the rare path) with another context. */
export async function rerun(operation: Operation, contextValue: object): Promise<ExecutionResult> {
  return execute({
    schema: operation.schema,
    document: operation.document,
    contextValue,
    variableValues: operation.variables,
    operationName: operation.operationName,
  });
}
