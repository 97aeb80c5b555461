import type { FastifyInstance } from 'fastify';
import { generateSigningJwk } from '../../src/auth/tokens.js';
import { waitForProjections } from '../../src/cli/seed/catch-up.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import type { Logger } from '../../src/log.js';
import { openServices, type Services } from '../../src/services.js';
import { baseUrlOf } from './floor.js';

/**
 * The events of the bench database are encrypted with this key, so every run (and the seed it starts)
 * must use the same one. It protects nothing: the database exists only for benchmarks.
 */
const BENCH_SECRET_KEY = Buffer.from('infraledger-bench-only-secret-k!').toString('base64');
/** The bootstrap `admin` password of the bench database (INITIAL_ADMIN_PASSWORD of its first start). */
const BENCH_ADMIN_PASSWORD = 'bench-admin-password';

/** The environment the service and the seed get: the bench database, its keys, quiet logs. */
export async function benchEnvironment(databaseUrl: string): Promise<Record<string, string>> {
  return {
    DATABASE_URL: databaseUrl,
    EVENT_STORE: 'postgres',
    SECRET_KEY: process.env.BENCH_SECRET_KEY ?? BENCH_SECRET_KEY,
    // Tokens live for one run only, so a fresh signing key per run is enough.
    TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
    INITIAL_ADMIN_PASSWORD: process.env.BENCH_ADMIN_PASSWORD ?? BENCH_ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
  };
}

/** The service as `main` runs it, listening on a free port, with a bearer token of `admin`. */
export interface BenchService {
  readonly services: Services;
  readonly app: FastifyInstance;
  readonly baseUrl: string;
  /** SQL statements the service has sent so far (every query through Kysely, authentication included); 0 when not counted. */
  statements(): number;
  close(): Promise<void>;
}

/**
 * Opens the services (migrating and bootstrapping a new database) and listens on 127.0.0.1. Counting
 * statements hooks Kysely's query log, which the service does not run in production: a side timed
 * against a peer passes `countStatements: false`.
 */
export async function openBenchService(
  env: Record<string, string>,
  log: Logger,
  options: { readonly countStatements?: boolean } = {},
): Promise<BenchService> {
  let statements = 0;
  const services = await openServices(loadConfig(env), log, {
    runProjections: true,
    ...((options.countStatements ?? true) && {
      onQuery: () => {
        statements++;
      },
    }),
  });
  try {
    const app = await buildApp(services);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      services,
      app,
      baseUrl: baseUrlOf(app),
      statements: () => statements,
      async close() {
        await app.close();
        await services.close();
      },
    };
  } catch (error) {
    await services.close();
    throw error;
  }
}

/** Waits until this process's projections applied everything the event store holds now. */
export async function catchUp(service: BenchService, onWaiting: (line: string) => void): Promise<void> {
  const head = await service.services.store.lastPosition();
  await waitForProjections(service.services, head, (lag) =>
    onWaiting(`projections catching up: ${lag.projection} is ${lag.behind} behind`),
  );
}

/** Signs `admin` in over HTTP, as a client would: `POST /api/auth/service_account/token`. */
export async function adminToken(baseUrl: string, env: Record<string, string>): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/service_account/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'admin', password: env.INITIAL_ADMIN_PASSWORD }),
  });
  const body = (await response.json()) as { token?: unknown; detail?: string };
  if (!response.ok || typeof body.token !== 'string') {
    throw new Error(
      `signing in admin failed (HTTP ${response.status}: ${body.detail ?? 'no detail'}); set BENCH_ADMIN_PASSWORD to the admin ` +
        `password of the bench database`,
    );
  }
  return body.token;
}
