import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/log.js';
import { openServices, type Services } from '../../src/services.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';
import { TEST_PASSWORD_HASH_COST } from './password-cost.js';
import { unregisteredCodes } from './error-codes.js';

/** The bootstrap admin's password in every harness. */
export const ADMIN_PASSWORD = 'test-admin-password-1';

/** The built HTTP app on a fresh database, with what it runs on, for `app.inject` tests. */
export interface HttpHarness {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly database: TestDatabase;
  readonly clock: TestClock;
  /** A bearer token of the bootstrap `admin` (role super). */
  readonly adminToken: string;
  /** `app.inject` that signs in as `admin` unless the request sets its own Authorization header. */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** A bearer token for a new service account with the given roles and grants. */
  serviceAccount(identifier: string, roles: readonly string[], grants?: readonly string[]): Promise<string>;
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
  /**
   * Extra environment for loadConfig (DATA_DIR, SECRET_KEY, LOG_LEVEL and PASSWORD_HASH_COST are set
   * already; a variable given as undefined is unset, so its default applies).
   */
  readonly env?: NodeJS.ProcessEnv;
  readonly clock?: TestClock;
  /**
   * Where the service's log lines go, at level `info` (tests capture them to prove nothing secret is
   * logged). Without it the service logs nothing.
   */
  readonly logDestination?: NodeJS.WritableStream;
  /** Sees every statement the app issues through Kysely (tests count the SQL a request runs). */
  readonly onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** How often the webhook deliverers look for new events (the service's default otherwise). */
  readonly webhookPollIntervalMs?: number;
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
    const destination = options.logDestination;
    const level = destination ? 'info' : 'silent';
    const config = loadConfig({
      DATA_DIR: dataDir,
      SECRET_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: level,
      INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      ...options.env,
    });
    services = await openServices(config, createLogger({ level, destination }), {
      pool: database.pool,
      pollIntervalMs: 20,
      now: clock.now,
      onQuery: options.onQuery,
      ...(options.webhookPollIntervalMs !== undefined && { webhookPollIntervalMs: options.webhookPollIntervalMs }),
    });
    const app = await buildApp(services);
    const unregistered: string[] = [];
    app.addHook('onSend', async (request, reply, payload) => {
      const codes =
        reply.statusCode >= 400 || request.url.startsWith('/api/graphql')
          ? unregisteredCodes(String(reply.getHeader('content-type') ?? ''), typeof payload === 'string' ? payload : '')
          : [];
      if (codes.length > 0) unregistered.push(`${request.method} ${request.url}: ${codes.join(', ')}`);
      return payload;
    });
    await app.ready();
    const opened = services;
    const signIn = async (identifier: string, password: string): Promise<string> => {
      const response = await app.inject({ method: 'POST', url: '/api/auth/service_account/token', payload: { identifier, password } });
      if (response.statusCode !== 200) throw new Error(`sign-in of ${identifier} failed: ${response.body}`);
      return response.json<{ token: string }>().token;
    };
    const adminToken = await signIn('admin', ADMIN_PASSWORD);
    const inject = (request: InjectOptions): Promise<LightMyRequestResponse> =>
      app.inject({ ...request, headers: { authorization: `Bearer ${adminToken}`, ...request.headers } });
    return {
      app,
      services: opened,
      database,
      clock,
      adminToken,
      inject,
      async serviceAccount(identifier, roles, grants = []) {
        const password = `${identifier}-password-long`;
        const created = await inject({
          method: 'POST',
          url: '/api/users',
          payload: { kind: 'service_account', identifier, password, roles, grants },
        });
        if (created.statusCode !== 201) throw new Error(`could not create ${identifier}: ${created.body}`);
        return signIn(identifier, password);
      },
      async close() {
        await app.close();
        await opened.close();
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
        if (unregistered.length > 0)
          throw new Error(`answered error codes missing from the registry (src/errors.ts):\n${unregistered.join('\n')}`);
      },
    };
  } catch (error) {
    await services?.close();
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
