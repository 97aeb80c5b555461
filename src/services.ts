import { ChangeFeed } from './read/change-feed.js';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from './config.js';
import { createDb, type Db } from './storage/kysely.js';
import { migrate } from './storage/migrate.js';
import { createPgPool, createPglitePool, type SqlPool } from './storage/pool.js';
import { allEventDefinitions } from './events/catalog.js';
import { createEventCodec, type EventCodec } from './events/codec.js';
import { createKeyring, loadOrCreateEmbeddedKey, parsePreviousKeys, parseSecretKey, type Keyring } from './events/crypto.js';
import { createEventStoreDbStore } from './events/store/eventstoredb.js';
import type { EventStore } from './events/store/port.js';
import { createPostgresEventStore } from './events/store/postgres.js';
import type { Logger } from './log.js';
import { allProjections } from './projections/registry.js';
import { dropAbandonedRebuilds } from './projections/rebuild.js';
import { ProjectionRunner } from './projections/runner.js';
import { createPositionWaiter } from './projections/waiter.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { createAuthenticator, type Authenticator } from './auth/authenticator.js';
import { bootstrap } from './auth/bootstrap.js';
import { SignInLimiter } from './auth/rate-limit.js';
import type { SignInDeps } from './auth/sign-in.js';
import { createSingleSignOn, type SingleSignOn } from './auth/sso/index.js';
import { createTokenService, loadOrCreateEmbeddedSigningKey, signingKeyFromText, type SigningKey, type TokenService } from './auth/tokens.js';

/** Everything a request handler may use, built once at start and passed down as values. */
export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly pool: SqlPool;
  readonly db: Db;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly runners: readonly ProjectionRunner[];
  /** Read-your-writes: resolves when the named projections reached the position. */
  readonly waitFor: (projections: readonly string[], position: bigint) => Promise<void>;
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
   * Refuse (ConfigError) to create an embedded database: commands that work on an existing one (the
   * CLI's projections and seed) must not leave a new empty DATA_DIR, with a new key, behind a typo.
   */
  readonly requireExistingDataDir?: boolean;
}

async function openSigningKey(config: Config, log: Logger): Promise<SigningKey> {
  if (config.TOKEN_SIGNING_KEY) return signingKeyFromText(config.TOKEN_SIGNING_KEY);
  const { key, created } = await loadOrCreateEmbeddedSigningKey(config.DATA_DIR);
  if (created) log.info({ kid: key.kid }, 'generated the token signing key for embedded mode');
  return key;
}

async function openKeyring(config: Config, log: Logger): Promise<Keyring> {
  const previous = parsePreviousKeys(config.SECRET_KEYS_PREVIOUS);
  if (config.SECRET_KEY) return createKeyring({ active: parseSecretKey(config.SECRET_KEY), previous });
  const { key, created } = await loadOrCreateEmbeddedKey(config.DATA_DIR);
  if (created) log.warn({ file: path.join(config.DATA_DIR, 'secret.key') }, 'generated a secret key for embedded mode; back it up with the data directory');
  return createKeyring({ active: key, previous });
}

/** Opens the stores, applies migrations and (optionally) starts the projections. */
export async function openServices(config: Config, log: Logger, options: OpenOptions = {}): Promise<Services> {
  const closers: (() => Promise<void>)[] = [];
  try {
    let pool = options.pool;
    if (!pool) {
      if (config.embedded) {
        if (options.requireExistingDataDir && !existsSync(path.join(config.DATA_DIR, 'pgdata'))) {
          throw new ConfigError(
            `DATA_DIR ${config.DATA_DIR} holds no infraledger database (no pgdata/ in it), and this command does not create one: point DATA_DIR at the service's data directory (or set DATABASE_URL), or start the service once to create it`,
          );
        }
        await mkdir(config.DATA_DIR, { recursive: true });
        closers.push(await acquireDataDirLock(config.DATA_DIR));
        pool = await createPglitePool(path.join(config.DATA_DIR, 'pgdata'));
      } else {
        pool = createPgPool({ connectionString: config.DATABASE_URL ?? '', log, prepareStatements: config.DATABASE_PREPARED_STATEMENTS });
      }
      const owned = pool;
      closers.push(() => owned.end());
    }
    await migrate(pool, log);
    await dropAbandonedRebuilds(pool, log);
    const keyring = await openKeyring(config, log);
    const codec = createEventCodec(allEventDefinitions, keyring);
    const store =
      config.EVENT_STORE === 'eventstoredb'
        ? createEventStoreDbStore({ connectionString: config.EVENTSTOREDB_URL ?? '', log })
        : createPostgresEventStore({ pool, log, pollIntervalMs: options.pollIntervalMs ?? 1000 });
    closers.push(() => store.close());
    const runners = allProjections.map(
      (projection) => new ProjectionRunner(projection, { pool, store, codec, log, batchSize: config.PROJECTION_BATCH_SIZE, retryDelayMs: options.pollIntervalMs ?? 1000 }),
    );
    if (options.runProjections ?? true) for (const runner of runners) runner.start();
    closers.push(async () => {
      await Promise.all(runners.map((r) => r.stop()));
    });
    const changes = new ChangeFeed(store, log, { maxBuffered: config.SUBSCRIPTION_BUFFER, pageSize: 500 });
    // Before the store closes (closers run in reverse).
    closers.push(() => changes.close());
    const db = createDb(pool, { onQuery: options.onQuery });
    const waitFor = createPositionWaiter({ pool, runners, timeoutMs: config.READ_YOUR_WRITES_TIMEOUT_MS });
    if (config.embedded) await mkdir(config.DATA_DIR, { recursive: true });
    const tokens = createTokenService(await openSigningKey(config, log), config.BASE_URL);
    const now = options.now ?? (() => new Date());
    const signIn: SignInDeps = {
      store,
      codec,
      newId: randomUUID,
      log,
      db,
      tokens,
      limiter: new SignInLimiter(),
      waitFor,
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      sessionTtlHours: config.SESSION_TTL_HOURS,
    };
    const sso = createSingleSignOn(signIn, config);
    if ((options.bootstrap ?? true) && (options.runProjections ?? true)) await bootstrap(signIn, config.INITIAL_ADMIN_PASSWORD, now());
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
      authenticator: createAuthenticator({ db, tokens, backstage: sso.backstage }),
      signIn,
      sso,
      changes,
      async close() {
        for (const close of closers.reverse()) await close().catch((error: unknown) => log.warn({ err: error }, 'error while closing'));
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
