import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/log.js';
import { openServices, type Services } from '../../src/services.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';

/** The built HTTP app on a fresh database, with what it runs on, for `app.inject` tests. */
export interface HttpHarness {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly database: TestDatabase;
  readonly clock: TestClock;
  /** Closes the app, the services, the database and removes the data directory, in that order. */
  close(): Promise<void>;
}

/** A clock that starts at `start` and moves one second forward each time it is read. */
export interface TestClock {
  readonly now: () => Date;
  /** The instant the next `now()` returns, without advancing. */
  readonly peek: () => Date;
}

export function steppingClock(start = new Date('2024-01-01T00:00:00.000Z'), stepMs = 1000): TestClock {
  let next = start.getTime();
  return {
    now: () => {
      const at = new Date(next);
      next += stepMs;
      return at;
    },
    peek: () => new Date(next),
  };
}

export interface HttpHarnessOptions {
  /** Extra environment for loadConfig (DATA_DIR, SECRET_KEY and LOG_LEVEL are set already). */
  readonly env?: NodeJS.ProcessEnv;
  readonly clock?: TestClock;
}

/**
 * Opens services on a fresh database of `target` (migrated, projections running, quick polling)
 * and builds the app. Distinct instants per command keep `createdAt` ordering deterministic.
 */
export async function openHttpApp(target: DatabaseTarget, options: HttpHarnessOptions = {}): Promise<HttpHarness> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-http-'));
  const clock = options.clock ?? steppingClock();
  const database = await target.create();
  let services: Services | undefined;
  try {
    const config = loadConfig({ DATA_DIR: dataDir, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent', ...options.env });
    services = await openServices(config, createLogger({ level: 'silent' }), { pool: database.pool, pollIntervalMs: 20, now: clock.now });
    const app = await buildApp(services);
    await app.ready();
    const opened = services;
    return {
      app,
      services: opened,
      database,
      clock,
      async close() {
        await app.close();
        await opened.close();
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await services?.close();
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
