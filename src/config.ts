import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { PASSWORD_HASH_COST, passwordProblem } from './password-policy.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z
  .string()
  .regex(/^\d+$/, 'must be a positive whole number')
  .transform(Number)
  .refine((n) => n > 0, 'must be a positive whole number');

const wholeNumber = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a whole number (0 or more)')
  .transform(Number);

/** A JSON array of JWK objects (checked further when the keys are imported). */
const jwkArray = z.string().transform((text, context) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be a JSON array of JWKs, e.g. [{"kty":"OKP","crv":"Ed25519","x":"…","kid":"…"}]' });
    return z.NEVER;
  }
  if (!Array.isArray(parsed) || !parsed.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key))) {
    context.addIssue({ code: 'custom', message: 'must be a JSON array of JWK objects' });
    return z.NEVER;
  }
  return parsed as Record<string, unknown>[];
});
/** A TRUSTED_PROXIES entry: an address, a CIDR range, or one of proxy-addr's named ranges. */
function isProxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** A comma-separated list, each entry trimmed, empty ones dropped. */
const commaSeparated = z.string().transform((text) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== ''),
);

/** Environment variables of docs/contract.md §8, plus the tuning knobs the spine needs. */
const envSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number (0-65535)')
    .transform(Number)
    .refine((port) => port <= 65535, 'must be a port number (0-65535)')
    .default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL such as https://infraledger.example.com' }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  // PostgreSQL hot standbys of DATABASE_URL's server that serve reads (src/read/replicas.ts), comma-separated.
  READ_DATABASE_URL: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .refine((urls) => urls.every((url) => /^postgres(ql)?:\/\//.test(url)), 'must be postgres:// URLs, separated by commas')
    .optional(),
  // Named prepared statements for repeated statements (src/storage/prepared.ts); off behind a pooler that
  // cannot keep them (PgBouncer in transaction mode before 1.21).
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  EVENT_STORE: z.enum(['postgres', 'eventstoredb']).default('postgres'),
  EVENTSTOREDB_URL: z
    .string()
    .regex(/^(esdb|esdb\+discover|kurrentdb|kdb):\/\//, 'must be an esdb:// connection string')
    .optional(),
  SECRET_KEY: z.string().min(1).optional(),
  SECRET_KEYS_PREVIOUS: z.string().optional(),
  INITIAL_ADMIN_PASSWORD: z
    .string()
    .superRefine((value, context) => {
      const problem = passwordProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem.startsWith('is ') ? problem : `must be ${problem}` });
    })
    .optional(),
  /** log2 of scrypt's N for new password hashes (src/password-policy.ts); raised, older hashes are redone at sign-in. */
  PASSWORD_HASH_COST: z
    .string()
    .regex(/^\d{1,2}$/, 'must be a whole number')
    .transform(Number)
    .refine((cost) => cost >= PASSWORD_HASH_COST.min && cost <= PASSWORD_HASH_COST.max, {
      message:
        `must be from ${PASSWORD_HASH_COST.min} (16 MiB a hash) to ${PASSWORD_HASH_COST.max} (1 GiB); the default ` +
        `${PASSWORD_HASH_COST.default} is OWASP's minimum`,
    })
    .default(PASSWORD_HASH_COST.default),
  /** Private Ed25519 JWK (JSON) that signs access tokens; embedded mode generates one into DATA_DIR. */
  TOKEN_SIGNING_KEY: z.string().min(1).optional(),
  /** More Ed25519 JWKs that still verify (and are published in the JWKS) during a key rotation; never sign. */
  TOKEN_SIGNING_KEYS_PREVIOUS: jwkArray.optional(),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(900),
  SESSION_TTL_HOURS: positiveInt.default(168),
  APPROVAL_FLOW: bool.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Bearer token `GET /metrics` requires; unset, `/metrics` is off unless METRICS_PUBLIC is true. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 24)').optional(),
  /** `/metrics` without a token: only where nobody but the scraper reaches the port. */
  METRICS_PUBLIC: bool.default(false),
  /** OpenTelemetry: traces are exported only when this (the standard variable) is set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL such as http://otel-collector:4318' })
    .optional(),
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  /** Ended or expired sessions and sign-in records older than this leave the read tables (0: kept). */
  SIGN_IN_RETENTION_DAYS: wholeNumber.default(90),
  /** `signin-<day>` streams older than this are removed from the event store (0: kept). */
  SIGN_IN_EVENTS_RETENTION_DAYS: wholeNumber.default(365),
  RETENTION_INTERVAL_MINUTES: positiveInt.default(60),
  MAX_PAGE_SIZE: positiveInt.default(1000),
  READ_YOUR_WRITES_TIMEOUT_MS: positiveInt.default(5000),
  PROJECTION_BATCH_SIZE: positiveInt.default(500),
  READY_MAX_LAG: positiveInt.default(10_000),
  // Proxies whose X-Forwarded-For is believed (Fastify's trustProxy): the client address is then the
  // first one no trusted proxy added. Unset: the socket's address, X-Forwarded-For ignored.
  TRUSTED_PROXIES: commaSeparated
    .superRefine((entries, context) => {
      for (const entry of entries) {
        if (!isProxyEntry(entry))
          context.addIssue({
            code: 'custom',
            message:
              `${JSON.stringify(entry)} is not an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or one of loopback, ` +
              `linklocal, uniquelocal`,
          });
      }
    })
    .optional(),
  // Webhook targets on private, loopback or link-local addresses in these CIDR ranges are allowed
  // (refused by default: SSRF). E.g. 10.20.0.0/16 for an internal CI, 127.0.0.0/8 for a local receiver.
  WEBHOOK_ALLOWED_PRIVATE_RANGES: commaSeparated
    .superRefine((entries, context) => {
      for (const entry of entries) {
        if (!entry.includes('/') || !isProxyEntry(entry))
          context.addIssue({ code: 'custom', message: `${JSON.stringify(entry)} is not a CIDR range such as 10.0.0.0/8 or fd00::/8` });
      }
    })
    .default([]),
  /** How long one webhook delivery may take before it counts as failed. */
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  /** Failed attempts at one event before the webhook stops, dead-lettered (until re-driven). */
  WEBHOOK_MAX_ATTEMPTS: positiveInt.default(10),
  /** The first retry's delay; each next one doubles, up to WEBHOOK_RETRY_MAX_MS. */
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(1000),
  WEBHOOK_RETRY_MAX_MS: positiveInt.default(600_000),
  // The most audit entries one CSV export holds (GET /api/audit_log with Accept: text/csv).
  AUDIT_EXPORT_MAX_ROWS: positiveInt.default(100_000),
  // Single sign-on: plain http to identity providers beyond loopback; Backstage JWKS refetch cooldown.
  SSO_ALLOW_INSECURE_HTTP: bool.default(false),
  // Identity-provider URLs (OIDC discovery and token endpoints, GitHub's token and API URLs, a
  // Backstage jwksUrl) on private, loopback or link-local addresses (refused by default: SSRF).
  SSO_ALLOW_PRIVATE_ADDRESSES: bool.default(false),
  // The older name of SSO_ALLOW_PRIVATE_ADDRESSES, from when only a Backstage jwksUrl was guarded: the same switch.
  SSO_ALLOW_PRIVATE_JWKS: bool.default(false),
  BACKSTAGE_JWKS_COOLDOWN_SECONDS: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of seconds')
    .transform(Number)
    .default(30),
  // GraphQL limits, each checked before execution (src/graphql/limits.ts).
  GRAPHQL_MAX_DEPTH: positiveInt.default(10),
  GRAPHQL_MAX_COST: positiveInt.default(80_000),
  GRAPHQL_MAX_ALIASES: positiveInt.default(30),
  GRAPHQL_MAX_DOCUMENT_BYTES: positiveInt.default(50_000),
  // An answer larger than this is replaced by an error naming the setting (src/graphql/limits.ts).
  GRAPHQL_MAX_RESPONSE_BYTES: positiveInt.default(10_000_000),
  // Documents answered without a valid token (introspection, enabledAuthProviders, serviceAccountToken):
  // one full introspection fits (about 50,000 with every option since teams and per-entity
  // permissions), two do not.
  GRAPHQL_PUBLIC_MAX_COST: positiveInt.default(60_000),
  GRAPHQL_PUBLIC_MAX_RESPONSE_BYTES: positiveInt.default(1_000_000),
  // GraphQL subscriptions (src/graphql/subscriptions.ts): per caller, and how far one may fall behind.
  SUBSCRIPTION_MAX_CONNECTIONS: positiveInt.default(10),
  SUBSCRIPTION_MAX_PER_CALLER: positiveInt.default(20),
  SUBSCRIPTION_BUFFER: positiveInt.default(1000),
  SUBSCRIPTION_AUTH_RECHECK_MS: positiveInt.default(2000),
  // What one change may cost a subscription's selection (it is paid again for every change delivered).
  SUBSCRIPTION_MAX_COST: positiveInt.default(100),
  // A WebSocket that has not signed in (connection_init) by then is closed with 4408; at most this many
  // such sockets per client address at once (more are refused with 429 before the upgrade).
  SUBSCRIPTION_INIT_TIMEOUT_MS: positiveInt.default(3000),
  SUBSCRIPTION_MAX_PENDING_PER_ADDRESS: positiveInt.default(16),
  // Run logs (src/read/run-logs.ts): the bound per run (then truncated with a marker) and how long they are kept.
  RUN_LOG_MAX_BYTES: positiveInt.default(10 * 1024 * 1024),
  RUN_LOG_RETENTION_DAYS: positiveInt.default(30),
});

/** Every variable the service reads (docs/configuration.md lists each; a test keeps the two equal). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** The environment as parsed. */
export type Env = z.infer<typeof envSchema>;

/** The service's settings, with defaults applied. */
export interface Config extends Omit<Env, 'BASE_URL' | 'DATA_DIR'> {
  readonly BASE_URL: string;
  /** Absolute path. */
  readonly DATA_DIR: string;
  /** True when no DATABASE_URL is set: PGlite inside DATA_DIR. */
  readonly embedded: boolean;
}

/** A setting that cannot be used; its message names it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment, failing fast with one line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset": docker-compose and shells often export VAR= .
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.EVENT_STORE === 'eventstoredb' && !e.EVENTSTOREDB_URL) problems.push('  EVENTSTOREDB_URL: required when EVENT_STORE=eventstoredb');
  if (e.DATABASE_URL && !e.SECRET_KEY) problems.push('  SECRET_KEY: required when DATABASE_URL is set (only embedded mode generates one)');
  if (e.DATABASE_URL && !e.TOKEN_SIGNING_KEY) {
    problems.push(
      '  TOKEN_SIGNING_KEY: required when DATABASE_URL is set, the same on every replica (generate one with: npm run -s keygen)',
    );
  }
  if (e.READ_DATABASE_URL && !e.DATABASE_URL) {
    problems.push('  READ_DATABASE_URL: needs DATABASE_URL (standbys replicate a PostgreSQL server; the embedded database has none)');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return {
    ...e,
    BASE_URL: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    DATA_DIR: path.resolve(e.DATA_DIR),
    embedded: e.DATABASE_URL === undefined,
    SSO_ALLOW_PRIVATE_ADDRESSES: e.SSO_ALLOW_PRIVATE_ADDRESSES || e.SSO_ALLOW_PRIVATE_JWKS,
  };
}
