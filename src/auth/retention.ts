import type { EventStore } from '../events/store/port.js';
import type { Logger } from '../log.js';
import { MARK_NOT_APPENDING } from '../storage/not-appending.js';
import { withTransaction, type SqlPool } from '../storage/pool.js';

/** How long sign-in data is kept (0: forever), from `SIGN_IN_RETENTION_DAYS` and `SIGN_IN_EVENTS_RETENTION_DAYS`. */
export interface RetentionSettings {
  /** Ended or expired sessions, and sign-in, session and SSO-login audit entries, leave the read tables after this. */
  readonly readTableDays: number;
  /** `signin-<day>` streams older than this are truncated in the event store. */
  readonly signInStreamDays: number;
}

/** What one run removed. */
export interface RetentionOutcome {
  readonly sessions: number;
  readonly auditEntries: number;
  readonly signInStreams: number;
}

/** The audit entries of sign-in bookkeeping: attempts, sessions (issuance, refreshes, ends) and SSO logins. */
const SIGN_IN_ENTITY_TYPES = ['sign_in', 'session', 'sso_login'];

/** Advisory lock key of the retention job: one replica prunes at a time. */
const RETENTION_LOCK = 7_146_016;

const DAY_MS = 86_400_000;
const isoDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * One retention run at `now`. The events of the pruned read rows stay in the event store (a rebuild
 * brings the rows back until the next run). Whole `signin-<day>` streams past their retention are
 * truncated, day by day from where the last run stopped (`retention_marks`; the first run starts at
 * the oldest audit entry), so each stream is visited once. Runs on other replicas meanwhile skip
 * (advisory lock).
 */
export async function pruneSignIns(
  deps: { readonly pool: SqlPool; readonly store: EventStore },
  settings: RetentionSettings,
  now: Date,
): Promise<RetentionOutcome | undefined> {
  const pruned = await withTransaction(deps.pool, async (tx) => {
    // Deleting many rows can take a while: marked, the transaction holds no reader of `$all` back.
    await tx.query(MARK_NOT_APPENDING);
    const { rows: lock } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RETENTION_LOCK]);
    if (!lock[0]?.locked) return undefined;
    // Where the sign-in streams were truncated up to; before the first truncation, the oldest audit entry's day.
    const { rows: marks } = await tx.query<{ through: string | null }>(
      "SELECT coalesce((SELECT to_char(through, 'YYYY-MM-DD') FROM retention_marks WHERE name = 'signin-streams'), (SELECT " +
        "to_char((min(at) AT TIME ZONE 'UTC')::date - 1, 'YYYY-MM-DD') FROM audit_log)) AS through",
    );
    if (settings.readTableDays === 0) return { sessions: 0, auditEntries: 0, through: marks[0]?.through ?? null };
    const cutoff = new Date(now.getTime() - settings.readTableDays * DAY_MS).toISOString();
    const sessions = (await tx.query('DELETE FROM sessions WHERE expires_at < $1 OR ended_at < $1', [cutoff])).rowCount ?? 0;
    const auditEntries =
      (await tx.query('DELETE FROM audit_log WHERE entity_type = ANY($1::text[]) AND at < $2', [SIGN_IN_ENTITY_TYPES, cutoff])).rowCount ??
      0;
    return { sessions, auditEntries, through: marks[0]?.through ?? null };
  });
  if (!pruned) return undefined;
  let signInStreams = 0;
  if (settings.signInStreamDays > 0 && pruned.through !== null) {
    // Outside the transaction (the store may share its one connection, PGlite); truncating twice is harmless.
    const cutoffDay = isoDay(new Date(now.getTime() - settings.signInStreamDays * DAY_MS));
    let day = new Date(Date.parse(`${pruned.through}T00:00:00Z`) + DAY_MS);
    for (; isoDay(day) < cutoffDay; day = new Date(day.getTime() + DAY_MS)) {
      await deps.store.truncate(`signin-${isoDay(day)}`);
      signInStreams++;
    }
    if (signInStreams > 0) {
      await deps.pool.query(
        "INSERT INTO retention_marks (name, through, updated_at) VALUES ('signin-streams', $1, now()) ON CONFLICT (name) DO UPDATE SET " +
          'through = GREATEST(retention_marks.through, EXCLUDED.through), updated_at = now()',
        [isoDay(new Date(day.getTime() - DAY_MS))],
      );
    }
  }
  return { sessions: pruned.sessions, auditEntries: pruned.auditEntries, signInStreams };
}

/** The retention job: a run at start and then every `intervalMs`; `stop` waits for a run in progress. */
export function startRetention(
  deps: { readonly pool: SqlPool; readonly store: EventStore; readonly log: Logger; readonly now: () => Date },
  settings: RetentionSettings,
  intervalMs: number,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = (): void => {
    running = running.then(async () => {
      try {
        const outcome = await pruneSignIns(deps, settings, deps.now());
        if (outcome && (outcome.sessions > 0 || outcome.auditEntries > 0 || outcome.signInStreams > 0))
          deps.log.info(outcome, 'pruned sign-in data past its retention');
      } catch (error) {
        deps.log.warn({ err: error }, 'sign-in retention run failed; the next run tries again');
      }
    });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
