import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SqlPool } from '../storage/pool.js';

/** The sign-in limiter's windows and bounds. */
export interface SignInLimiterOptions {
  /** Attempts per client address in any minute (a sliding window). Default 30. */
  readonly perAddressPerMinute?: number;
  /** Failures for one identifier before each further attempt must wait. Default 5. */
  readonly freeFailures?: number;
  /** The longest wait a run of failures can impose, in seconds. Default 900. */
  readonly maxDelaySeconds?: number;
  /**
   * Called once per refused attempt, with what refused it: the place for a metrics counter of
   * rate-limit refusals (nothing secret is passed, and the address is not).
   */
  readonly onRefused?: (scope: 'address' | 'identifier') => void;
}

/**
 * Guards sign-in and token endpoints (docs/contract.md §5: limited, slowed down, never locked out
 * forever). Counted in the database, so every replica of one database counts together.
 */
export interface SignInLimiter {
  /**
   * Counts an attempt from `address` (the client address, `TRUSTED_PROXIES` applied) and, for
   * password sign-ins, for `identifier`; throws RATE_LIMITED (429 with Retry-After) when it must wait.
   * An attempt counts as a failure of its identifier until `succeeded` says otherwise, so parallel
   * guesses cannot all pass before the first one fails.
   */
  admit(address: string, identifier: string | undefined, now: Date): Promise<void>;
  /** The identifier signed in: its failures are forgotten. */
  succeeded(identifier: string): Promise<void>;
}

const WINDOW_MS = 60_000;

const tooMany = (retryAfterMs: number, why: string): AppError => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('RATE_LIMITED', `too many sign-in attempts ${why}; retry in ${seconds} s`, { details: { retryAfter: seconds } });
};

/**
 * The sliding-window estimate of attempts in the last minute: this window's count plus the
 * previous window's, weighted by how much of it still lies within the last minute. Unlike a fixed
 * window it does not let a second full allowance through just after a window boundary.
 */
export function slidingCount(previous: number, current: number, elapsedMs: number, windowMs = WINDOW_MS): number {
  return previous * Math.max(0, 1 - elapsedMs / windowMs) + current;
}

/**
 * How long until one more attempt would be admitted (its count, itself included, at most `limit`),
 * if none came meanwhile: later in this window as the previous one's weight fades, or in the next.
 */
export function addressRetryAfterMs(previous: number, current: number, elapsedMs: number, limit: number, windowMs = WINDOW_MS): number {
  if (current + 1 <= limit && previous > 0) {
    const waitInWindow = windowMs * (1 - (limit - current - 1) / previous) - elapsedMs;
    // Whole milliseconds, rounded up: never a moment too early.
    if (waitInWindow < windowMs - elapsedMs) return Math.max(0, Math.ceil(waitInWindow - 1e-6));
  }
  // In the next window this one is the previous: its weight must fall so one attempt fits.
  const intoNext = current <= 0 ? 0 : Math.max(0, windowMs * (1 - (limit - 1) / current));
  return windowMs - elapsedMs + Math.ceil(intoNext - 1e-6);
}

/** The wait after the `attempts`-th attempt of a run of failures: none for the free ones, then 1 s doubling, capped. */
export function failureDelayMs(attempts: number, freeFailures: number, maxDelayMs: number): number {
  if (attempts < freeFailures) return 0;
  return Math.min(maxDelayMs, 1000 * 2 ** Math.min(40, attempts - freeFailures));
}

/** Identifiers are kept only as digests: people type passwords into identifier fields. */
const identifierKey = (identifier: string): string => createHash('sha256').update(identifier.toLowerCase()).digest('hex');

// Each statement is one round trip and atomic: a row lock serialises replicas counting the same key.
const COUNT_ADDRESS = `
  INSERT INTO sign_in_address_windows AS w (address, window_start, attempts) VALUES ($1, $2::bigint, 1)
  ON CONFLICT (address, window_start) DO UPDATE SET attempts = w.attempts + 1
  RETURNING w.attempts,
    (SELECT p.attempts FROM sign_in_address_windows AS p WHERE p.address = $1 AND p.window_start = $2::bigint - ${WINDOW_MS}) AS previous`;

// Admitted (and counted) only when the identifier's run of failures is stale, still free, or has
// waited long enough; otherwise no row is returned and nothing changes.
const COUNT_IDENTIFIER = `
  INSERT INTO sign_in_failures AS f (identifier_hash, attempts, last_at) VALUES ($1, 1, $2::bigint)
  ON CONFLICT (identifier_hash) DO UPDATE SET
    attempts = CASE WHEN $2::bigint - f.last_at > $3::bigint THEN 1 ELSE f.attempts + 1 END,
    last_at = $2::bigint
  WHERE $2::bigint - f.last_at > $3::bigint
     OR f.attempts < $4::integer
     OR f.last_at + least($3::bigint, (1000 * power(2::float8, least(40, f.attempts - $4::integer)))::bigint) <= $2::bigint
  RETURNING f.attempts`;

const READ_IDENTIFIER = 'SELECT attempts, last_at FROM sign_in_failures WHERE identifier_hash = $1';
const FORGET_IDENTIFIER = 'DELETE FROM sign_in_failures WHERE identifier_hash = $1';
const PRUNE_WINDOWS = 'DELETE FROM sign_in_address_windows WHERE window_start < $1::bigint';
const PRUNE_FAILURES = 'DELETE FROM sign_in_failures WHERE last_at < $1::bigint';

/**
 * The sign-in limiter on the database: per client address a sliding one-minute window, and per
 * identifier a delay that doubles with each failure after the free ones (capped at
 * `maxDelaySeconds`, and forgotten after a success or once the cap has passed). Counters that can
 * no longer refuse anything are pruned at most once a window by each replica, so the tables hold only
 * the last two minutes of addresses and the last `maxDelaySeconds` of failing identifiers, and are
 * never wiped wholesale (a wipe would forgive every guesser at once).
 */
export function createSignInLimiter(deps: { pool: SqlPool; log?: Logger }, options: SignInLimiterOptions = {}): SignInLimiter {
  const perAddress = options.perAddressPerMinute ?? 30;
  const free = options.freeFailures ?? 5;
  const maxDelayMs = (options.maxDelaySeconds ?? 900) * 1000;
  const refused = (scope: 'address' | 'identifier', error: AppError): AppError => {
    options.onRefused?.(scope);
    return error;
  };
  let prunedAt = -Infinity;

  async function prune(now: number): Promise<void> {
    if (now - prunedAt < WINDOW_MS) return;
    prunedAt = now;
    const currentStart = now - (now % WINDOW_MS);
    try {
      await deps.pool.query(PRUNE_WINDOWS, [currentStart - WINDOW_MS]);
      await deps.pool.query(PRUNE_FAILURES, [now - maxDelayMs]);
    } catch (error) {
      // Pruning is housekeeping: the next window tries again.
      prunedAt = -Infinity;
      deps.log?.warn({ err: error }, 'could not prune the sign-in limiter tables');
    }
  }

  async function admitAddress(address: string, now: number): Promise<void> {
    const start = now - (now % WINDOW_MS);
    // Drivers differ on numeric types (PGlite and node-postgres): read both as numbers.
    const { rows } = await deps.pool.query<{ attempts: number | string; previous: number | string | null }>(COUNT_ADDRESS, [
      address,
      start,
    ]);
    const current = Number(rows[0]?.attempts ?? 1);
    const previous = Number(rows[0]?.previous ?? 0);
    const elapsed = now - start;
    if (slidingCount(previous, current, elapsed) > perAddress) {
      // This attempt is counted too: a client that keeps hammering stays refused.
      throw refused('address', tooMany(addressRetryAfterMs(previous, current, elapsed, perAddress), 'from this address'));
    }
  }

  async function admitIdentifier(identifier: string, now: number): Promise<void> {
    const key = identifierKey(identifier);
    const { rows } = await deps.pool.query(COUNT_IDENTIFIER, [key, now, maxDelayMs, free]);
    if (rows.length > 0) return;
    const { rows: held } = await deps.pool.query<{ attempts: number | string; last_at: number | string }>(READ_IDENTIFIER, [key]);
    const row = held[0];
    const readyAt = row ? Number(row.last_at) + failureDelayMs(Number(row.attempts), free, maxDelayMs) : now;
    throw refused('identifier', tooMany(readyAt - now, 'for this identifier'));
  }

  return {
    async admit(address, identifier, at) {
      const now = at.getTime();
      await prune(now);
      await admitAddress(address, now);
      if (identifier !== undefined) await admitIdentifier(identifier, now);
    },
    async succeeded(identifier) {
      await deps.pool.query(FORGET_IDENTIFIER, [identifierKey(identifier)]);
    },
  };
}
