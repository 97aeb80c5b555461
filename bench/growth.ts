/**
 * `npm run bench:growth [-- --sign-ins 100000 --concurrency 16]`: what sign-ins leave behind, and
 * what the retention job (src/auth/retention.ts) takes back. On a throwaway PostgreSQL database
 * (BENCH_DATABASE_URL's server), N service-account sign-ins dated 400 days ago go through the sign-in
 * path (session command, sign-in fact, read-your-writes; the password check is skipped: scrypt would
 * be the whole cost); then rows and bytes of the tables that grow are measured, the retention job
 * runs at today's date with the default settings, and they are measured again (after VACUUM FULL, so
 * the bytes are what the remaining rows hold; a plain autovacuum makes the space reusable in place).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { pruneSignIns } from '../src/auth/retention.js';
import { startSession } from '../src/auth/sign-in.js';
import { generateSigningJwk } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { openServices } from '../src/services.js';
import { DEFAULT_POSTGRES_URL } from './database.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const SIGN_INS = option('sign-ins', 100_000);
const CONCURRENCY = option('concurrency', 16);
const say = (line: string): void => void process.stdout.write(`${line}\n`);

interface Measure {
  readonly table: string;
  readonly rows: number;
  readonly bytes: number;
}

async function measure(client: pg.Client): Promise<Measure[]> {
  const out: Measure[] = [];
  for (const [table, where] of [
    ['events', ''],
    ['events: signin-<day> streams', "WHERE stream_id LIKE 'signin-%'"],
    ['events: session-<id> streams', "WHERE stream_id LIKE 'session-%'"],
    ['sessions', ''],
    ['audit_log', ''],
  ] as const) {
    const relation = table.split(':')[0] ?? table;
    const { rows } = await client.query<{ n: string; bytes: string }>(
      `SELECT count(*) AS n, ${where === '' ? `pg_total_relation_size('${relation}')` : 'sum(pg_column_size(e.*))'} AS bytes FROM ${relation} e ${where}`,
    );
    out.push({ table, rows: Number(rows[0]?.n ?? 0), bytes: Number(rows[0]?.bytes ?? 0) });
  }
  return out;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
  const name = `il_bench_growth_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  say(
    `load before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${SIGN_INS} sign-ins, ${CONCURRENCY} at a time`,
  );
  const then = new Date(Date.now() - 400 * 86_400_000);
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    SECRET_KEY: randomBytes(32).toString('base64'),
    TOKEN_SIGNING_KEY: JSON.stringify(await generateSigningJwk()),
    INITIAL_ADMIN_PASSWORD: 'bench-growth-password',
    LOG_LEVEL: 'silent',
  });
  const services = await openServices(config, createLogger({ level: 'silent' }), { now: () => then, runRetention: false });
  try {
    await client.connect();
    const adminUser = (await client.query<{ id: string }>("SELECT id FROM users WHERE identifier = 'admin'")).rows[0];
    if (!adminUser) throw new Error('no admin');
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SIGN_INS) {
          next++;
          await startSession(
            services.signIn,
            {
              userId: adminUser.id,
              identifier: 'admin',
              method: 'service_account',
              provider: 'svc_service_account',
              ttlSeconds: 3600,
              browser: false,
            },
            { actorId: adminUser.id, correlationId: randomUUID(), causationId: null, now: then },
          );
        }
      }),
    );
    const head = await services.store.lastPosition();
    if (head !== undefined) await services.waitFor(['sessions', 'audit_log'], head);
    say(`${SIGN_INS} sign-ins in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await client.query('VACUUM FULL events, sessions, audit_log');
    const before = await measure(client);
    const pruneStarted = Date.now();
    const outcome = await pruneSignIns(
      services,
      { readTableDays: config.SIGN_IN_RETENTION_DAYS, signInStreamDays: config.SIGN_IN_EVENTS_RETENTION_DAYS },
      new Date(),
    );
    say(`retention run: ${JSON.stringify(outcome)} in ${((Date.now() - pruneStarted) / 1000).toFixed(1)} s`);
    await client.query('VACUUM FULL events, sessions, audit_log');
    const after = await measure(client);
    say('');
    say('| table | rows before | bytes before | rows after | bytes after |');
    say('|---|---:|---:|---:|---:|');
    for (const [i, b] of before.entries()) {
      const a = after[i];
      say(
        `| ${b.table} | ${b.rows.toLocaleString('en')} | ${mb(b.bytes)} | ${(a?.rows ?? 0).toLocaleString('en')} | ${mb(a?.bytes ?? 0)} |`,
      );
    }
    say(
      `load after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await services.close();
    await client.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
