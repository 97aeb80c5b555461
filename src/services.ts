import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Config } from './config.js';
import { createDb, type Db } from './storage/kysely.js';
import type { SqlPool } from './storage/pool.js';
import { readRoute, routedPool } from './storage/read-route.js';
import { createReadReplicas, type ReadReplicas } from './read/replicas.js';
import type { EventCodec } from './events/codec.js';
import type { EventStore } from './events/store/port.js';
import type { Logger } from './log.js';
import { startNotifications } from './delivery/notifications.js';
import { startWebhookDelivery } from './delivery/webhooks.js';
import { guardedFetch } from './auth/sso/guarded-fetch.js';
import { allProjections } from './projections/registry.js';
import { openEventLog } from './projections/event-log.js';
import { ProjectionHub, type ProjectionLane } from './projections/hub.js';
import { createPositionWaiter, type PositionWaiter } from './projections/waiter.js';
import { ChangeFeed } from './read/change-feed.js';
import { RunLogFeed } from './read/run-log-feed.js';
import { deleteRunLogsBefore } from './read/run-logs.js';
import { createAuthenticator, type Authenticator } from './auth/authenticator.js';
import { bootstrap } from './auth/bootstrap.js';
import { passwordHasher } from './auth/passwords.js';
import { createSignInLimiter } from './auth/rate-limit.js';
import type { SignInDeps } from './auth/sign-in.js';
import { createSingleSignOn, type SingleSignOn } from './auth/sso/index.js';
import {
  createTokenService,
  loadOrCreateEmbeddedSigningKey,
  readEmbeddedPreviousKeys,
  signingKeyFromText,
  verificationKey,
  type SigningKey,
  type TokenService,
} from './auth/tokens.js';
import type { JWK } from 'jose';
import { signInCounter } from './auth/sign-in-metrics.js';
import { startRetention } from './auth/retention.js';
import { instrumentEventStore } from './events/store/instrumented.js';
import { timedProjection } from './projections/instrumented.js';
import { createMetrics, type Metrics } from './metrics.js';
import { inSpan } from './spans.js';

/** Metrics count a projection's lag up to this many events (a scrape stays cheap however far behind it is). */
const PROJECTION_LAG_COUNT_LIMIT = 100_000;

/** Everything a request handler may use, built once at start and passed down as values. */
export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly pool: SqlPool;
  readonly db: Db;
  readonly store: EventStore;
  readonly codec: EventCodec;
  /** Each projection's state and position in this process (all run by one hub: projections/hub.ts). */
  readonly runners: readonly ProjectionLane[];
  /** Read-your-writes: resolves when the named projections reached the position. */
  readonly waitFor: PositionWaiter;
  readonly newId: () => string;
  readonly now: () => Date;
  readonly tokens: TokenService;
  readonly authenticator: Authenticator;
  /** Everything sign-in flows need (command deps, tokens, rate limiter, lifetimes). */
  readonly signIn: SignInDeps;
  /** Browser single sign-on flows and Backstage tokens. */
  readonly sso: SingleSignOn;
  /** Live changes from the event log, for GraphQL subscriptions. */
  readonly changes: ChangeFeed;
  /** Live tails of run logs, for GraphQL subscriptions. */
  readonly runLogs: RunLogFeed;
  /** Prometheus instruments (`GET /metrics`). */
  readonly metrics: Metrics;
  /** The hot standbys that serve reads (READ_DATABASE_URL), if any. */
  readonly readReplicas?: ReadReplicas;
  close(): Promise<void>;
}

/** How openServices opens the stores (tests inject a pool, a clock and ids). */
export interface OpenOptions {
  /** Start the projection runners (the CLI opens the stores without them). */
  readonly runProjections?: boolean;
  /** Overrides for tests: an existing pool, a fixed clock, a quick poll. */
  readonly pool?: SqlPool;
  readonly now?: () => Date;
  readonly pollIntervalMs?: number;
  readonly onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Create the svc provider and `admin` on first start (default true). */
  readonly bootstrap?: boolean;
  /**
   * Run the sign-in retention job (src/auth/retention.ts). Default: with the projections and the real
   * clock; a test with a fixed clock runs `pruneSignIns` itself, at the instants it chooses.
   */
  readonly runRetention?: boolean;
  /**
   * Refuse (ConfigError) to create an embedded database: commands that work on an existing one (the
   * CLI's projections and seed) must not leave a new empty DATA_DIR, with a new key, behind a typo.
   */
  readonly requireExistingDataDir?: boolean;
  /** Deliver webhooks and notifications (src/delivery). Default: with the projections. */
  readonly runWebhooks?: boolean;
  /** How often idle webhook and notification deliverers look for new events (tests: quicker than the 500 ms default). */
  readonly webhookPollIntervalMs?: number;
}

async function openSigningKey(config: Config, log: Logger): Promise<SigningKey> {
  if (config.TOKEN_SIGNING_KEY) return signingKeyFromText(config.TOKEN_SIGNING_KEY);
  const { key, created } = await loadOrCreateEmbeddedSigningKey(config.DATA_DIR);
  if (created) log.info({ kid: key.kid }, 'generated the token signing key for embedded mode');
  return key;
}

/**
 * Keys that verify but no longer sign: TOKEN_SIGNING_KEYS_PREVIOUS, and in embedded mode the ones
 * `npm run signing-key -- rotate` retired into DATA_DIR. Only their public parts are kept.
 */
async function openPreviousSigningKeys(config: Config): Promise<JWK[]> {
  const given = config.TOKEN_SIGNING_KEYS_PREVIOUS ?? [];
  const retired = config.TOKEN_SIGNING_KEY ? [] : await readEmbeddedPreviousKeys(config.DATA_DIR);
  return Promise.all([...given, ...retired].map((jwk) => verificationKey(jwk as Record<string, unknown>)));
}

/** How often expired run logs are deleted. */
const RUN_LOG_SWEEP_MS = 60 * 60 * 1000;

/**
 * Deletes run logs that last grew more than `days` ago: once at start, then hourly (every replica
 * does; a delete that finds nothing costs one indexed statement). Returns the stopper.
 */
function startRunLogRetention(pool: SqlPool, log: Logger, days: number, now: () => Date): () => Promise<void> {
  const sweep = (): void => {
    const before = new Date(now().getTime() - days * 24 * 60 * 60 * 1000);
    deleteRunLogsBefore(pool, before).then(
      (deleted) => {
        if (deleted > 0) log.info({ runs: deleted, retentionDays: days }, 'deleted expired run logs');
      },
      (error: unknown) => log.warn({ err: error }, 'could not delete expired run logs; trying again later'),
    );
  };
  sweep();
  const timer = setInterval(sweep, RUN_LOG_SWEEP_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    return Promise.resolve();
  };
}

/** Opens the stores, applies migrations and (optionally) starts the projections. */
export async function openServices(config: Config, log: Logger, options: OpenOptions = {}): Promise<Services> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const eventLog = await openEventLog(config, log, {
      ...(options.pool && { pool: options.pool }),
      ...(options.requireExistingDataDir !== undefined && { requireExistingDataDir: options.requireExistingDataDir }),
      pollIntervalMs: options.pollIntervalMs ?? 1000,
    });
    // Closed last (closers run in reverse): the store, then the pool it opened, then DATA_DIR's lock.
    closers.push(() => eventLog.close());
    const { pool, codec } = eventLog;
    const metrics = createMetrics();
    const store = instrumentEventStore(eventLog.store, metrics, signInCounter(metrics));
    // One reader of $all feeds every projection.
    const hub = new ProjectionHub(
      allProjections.map((projection) => timedProjection(projection, metrics)),
      {
        pool,
        store,
        codec,
        log,
        batchSize: config.PROJECTION_BATCH_SIZE,
        retryDelayMs: options.pollIntervalMs ?? 1000,
        // Projections' inserts run as statements prepared on each connection, as the follow-ups.
        prepareWrites: config.DATABASE_PREPARED_STATEMENTS,
      },
    );
    const runners = hub.projections;
    metrics.sampleProjections = async () => {
      // Positions are not dense: lag is counted in events (bounded), once per distinct checkpoint.
      const lags = new Map<string, Promise<number>>();
      const lagOf = (position: bigint | undefined): Promise<number> => {
        const key = String(position);
        let lag = lags.get(key);
        if (!lag) lags.set(key, (lag = store.countAfter(position, PROJECTION_LAG_COUNT_LIMIT)));
        return lag;
      };
      return Promise.all(
        runners.map(async (runner) => ({
          name: runner.projection.name,
          position: runner.position,
          lag: await lagOf(runner.position),
          failed: runner.state === 'failed',
        })),
      );
    };
    if (options.runProjections ?? true) hub.start();
    closers.push(() => hub.stop());
    const changes = new ChangeFeed(store, log, { maxBuffered: config.SUBSCRIPTION_BUFFER, pageSize: 500 });
    // Before the store closes (closers run in reverse).
    closers.push(() => changes.close());
    const runLogs = new RunLogFeed(pool, log, { pollIntervalMs: options.pollIntervalMs ?? 1000, pageChunks: 200, pageBytes: 256 * 1024 });
    closers.push(() => runLogs.close());
    // The wall clock, not the injectable one: retention is about real days (tests call deleteRunLogsBefore).
    if (options.runProjections ?? true) closers.push(startRunLogRetention(pool, log, config.RUN_LOG_RETENTION_DAYS, () => new Date()));
    const readReplicas =
      config.READ_DATABASE_URL && config.READ_DATABASE_URL.length > 0
        ? createReadReplicas({
            urls: config.READ_DATABASE_URL,
            log,
            timeoutMs: config.READ_YOUR_WRITES_TIMEOUT_MS,
            prepareStatements: config.DATABASE_PREPARED_STATEMENTS,
            head: () => store.lastPosition(),
          })
        : undefined;
    if (readReplicas) closers.push(() => readReplicas.end());
    // With standbys, the query builder sends a read request's statements to its standby (src/storage/read-route.ts).
    const db = createDb(readReplicas ? routedPool(pool, readReplicas) : pool, { onQuery: options.onQuery });
    // Sessions and tokens are always looked up on the primary (GraphQL authenticates inside the read
    // route): a session another replica of the service made a moment ago is found there at once.
    const primaryDb = readReplicas ? createDb(pool, { onQuery: options.onQuery }) : db;
    const waitForPosition = createPositionWaiter({
      pool,
      runners,
      // A write's answer rides in its batch's message as a statement prepared on that connection
      // (src/projections/follow-ups.ts); behind a pooler that keeps no prepared statements it reads alone.
      follow: config.DATABASE_PREPARED_STATEMENTS ? (read, position, projections) => hub.follow(read, position, projections) : undefined,
      timeoutMs: config.READ_YOUR_WRITES_TIMEOUT_MS,
      head: () => store.lastPosition(),
    });
    // Read-your-writes is the last part of a write's trace: decide → append → wait for the projections.
    // A read served by a standby waits on the standby's checkpoints; a wait on the primary is noted for them.
    const waitFor: PositionWaiter = (projections, position, waitOptions) => {
      const route = readRoute.getStore();
      const standby = route && readReplicas?.replicaOf(route);
      const attributes = { 'infraledger.projections': projections.join(','), 'infraledger.position': String(position) };
      const onPrimary = () =>
        inSpan('wait for projections', () => waitForPosition(projections, position, waitOptions), attributes).then((rows) => {
          readReplicas?.noteWrite(projections, position);
          return rows;
        });
      if (!standby || !readReplicas?.usable(standby.pool)) return onPrimary();
      // A standby out of reach: the primary's checkpoints answer instead, as for the read itself.
      return inSpan('wait for projections on a standby', () => standby.waitFor(projections, position, waitOptions), attributes).catch(
        (error: unknown) => {
          if (!readReplicas.failed(standby.pool, error)) throw error;
          return onPrimary();
        },
      );
    };
    if (config.embedded) await mkdir(config.DATA_DIR, { recursive: true });
    const tokens = createTokenService(await openSigningKey(config, log), config.BASE_URL, await openPreviousSigningKeys(config));
    const now = options.now ?? (() => new Date());
    const signIn: SignInDeps = {
      store,
      codec,
      newId: randomUUID,
      log,
      db,
      tokens,
      limiter: createSignInLimiter({ pool, log }, { onRefused: () => metrics.rateLimitRefusals.inc({ limiter: 'sign_in' }) }),
      passwords: passwordHasher(config.PASSWORD_HASH_COST),
      waitFor,
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      sessionTtlHours: config.SESSION_TTL_HOURS,
    };
    const sso = createSingleSignOn(signIn, config);
    if ((options.bootstrap ?? true) && (options.runProjections ?? true)) await bootstrap(signIn, config.INITIAL_ADMIN_PASSWORD, now());
    if (options.runRetention ?? ((options.runProjections ?? true) && options.now === undefined)) {
      const retention = startRetention(
        { pool, store, log, now },
        { readTableDays: config.SIGN_IN_RETENTION_DAYS, signInStreamDays: config.SIGN_IN_EVENTS_RETENTION_DAYS },
        config.RETENTION_INTERVAL_MINUTES * 60_000,
      );
      closers.push(() => retention.stop());
    }
    if (options.runWebhooks ?? options.runProjections ?? true) {
      // Webhooks and notifications share the delivery settings and the private-address guard.
      const delivery = {
        pool,
        db,
        store,
        codec,
        log,
        fetch: guardedFetch({ allowPrivate: false, allowedRanges: config.WEBHOOK_ALLOWED_PRIVATE_RANGES }),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
        retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
        ...(options.webhookPollIntervalMs !== undefined && { pollIntervalMs: options.webhookPollIntervalMs }),
      };
      const webhooks = startWebhookDelivery({ ...delivery, source: config.BASE_URL });
      const notifications = startNotifications({ ...delivery, baseUrl: config.BASE_URL });
      // Before the store closes (closers run in reverse).
      closers.push(
        () => webhooks.stop(),
        () => notifications.stop(),
      );
    }
    return {
      config,
      log,
      pool,
      db,
      store,
      codec,
      runners,
      waitFor,
      newId: randomUUID,
      now,
      tokens,
      authenticator: createAuthenticator({ db: primaryDb, tokens, backstage: sso.backstage }),
      signIn,
      sso,
      changes,
      runLogs,
      metrics,
      ...(readReplicas && { readReplicas }),
      async close() {
        for (const close of closers.reverse()) await close().catch((error: unknown) => log.warn({ err: error }, 'error while closing'));
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
