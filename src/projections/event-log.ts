import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { acquireDataDirLock } from '../data-dir-lock.js';
import type { Logger } from '../log.js';
import { migrate } from '../storage/migrate.js';
import { createPgPool, createPglitePool, type SqlPool } from '../storage/pool.js';
import { allEventDefinitions } from '../events/catalog.js';
import { createEventCodec, type EventCodec } from '../events/codec.js';
import { createKeyring, loadOrCreateEmbeddedKey, parsePreviousKeys, parseSecretKey, type Keyring } from '../events/crypto.js';
import type { EventStore } from '../events/store/port.js';
import { createPostgresEventStore } from '../events/store/postgres.js';
import { dropAbandonedRebuilds } from './rebuild.js';

/**
 * What projections run on: the database (migrated), the event store, and the codec with the
 * service's keys. The service opens it first (src/services.ts); `npm run projections` opens only
 * this, so a rebuild starts without loading the HTTP, GraphQL and sign-in code (≈ 0.4 s a run).
 */
export interface EventLog {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  /** Closes the store, then the pool it opened, then releases DATA_DIR. */
  close(): Promise<void>;
}

/** How openEventLog opens the database (tests inject a pool). */
export interface EventLogOptions {
  /** An existing pool, left open by close(). */
  readonly pool?: SqlPool;
  /**
   * Refuse (ConfigError) to create an embedded database: commands that work on an existing one (the
   * CLI's projections and seed) must not leave a new empty DATA_DIR, with a new key, behind a typo.
   */
  readonly requireExistingDataDir?: boolean;
  /** How often an idle subscription polls the PostgreSQL store (default 1 s). */
  readonly pollIntervalMs?: number;
}

async function openKeyring(config: Config, log: Logger): Promise<Keyring> {
  const previous = parsePreviousKeys(config.SECRET_KEYS_PREVIOUS);
  if (config.SECRET_KEY) return createKeyring({ active: parseSecretKey(config.SECRET_KEY), previous });
  const { key, created } = await loadOrCreateEmbeddedKey(config.DATA_DIR);
  if (created)
    log.warn(
      { file: path.join(config.DATA_DIR, 'secret.key') },
      'generated a secret key for embedded mode; back it up with the data directory',
    );
  return createKeyring({ active: key, previous });
}

/** Opens the database (embedded PGlite in DATA_DIR, or DATABASE_URL), migrates it, and opens the event store over it. */
export async function openEventLog(config: Config, log: Logger, options: EventLogOptions = {}): Promise<EventLog> {
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async (onError: (error: unknown) => void): Promise<void> => {
    for (const close of closers.reverse()) await close().catch(onError);
  };
  try {
    let pool = options.pool;
    if (!pool) {
      if (config.embedded) {
        if (options.requireExistingDataDir && !existsSync(path.join(config.DATA_DIR, 'pgdata'))) {
          throw new ConfigError(
            `DATA_DIR ${config.DATA_DIR} holds no infraledger database (no pgdata/ in it), and this command does not create one: point ` +
              `DATA_DIR at the service's data directory (or set DATABASE_URL), or start the service once to create it`,
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
    const codec = createEventCodec(allEventDefinitions, await openKeyring(config, log));
    const store =
      config.EVENT_STORE === 'eventstoredb'
        ? // Imported only when used: the gRPC client takes ~0.2 s to load, which every embedded start would pay.
          (await import('../events/store/eventstoredb.js')).createEventStoreDbStore({
            connectionString: config.EVENTSTOREDB_URL ?? '',
            log,
          })
        : createPostgresEventStore({ pool, log, pollIntervalMs: options.pollIntervalMs ?? 1000 });
    closers.push(() => store.close());
    return { pool, store, codec, close: () => closeAll((error) => log.warn({ err: error }, 'error while closing')) };
  } catch (error) {
    await closeAll(() => undefined);
    throw error;
  }
}
