import { z } from 'zod';
import { defaultCounts } from '../src/cli/seed/options.js';
import type { CatalogSize } from './graphql/catalog.js';

/** The parts `npm run bench` can run; without a part named, all of them. */
export const BENCH_PARTS = [
  'store',
  'commands',
  'commands-embedded',
  'lists',
  'rebuild',
  'creates',
  'peers',
  'graphql',
  'graphql-live',
] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

export const BENCH_USAGE = `usage: npm run bench -- [store] [commands] [commands-embedded] [lists] [rebuild] [creates] [peers] [graphql] [graphql-live] [--graphql-resources N] [--graphql-templates N] [--graphql-executors N]
                          [--graphql-duration S] [--graphql-warmup S] [--graphql-rounds N] [--graphql-query Q,…] [--base REF] [--creates-rounds N] [--creates-clients N]
  store                  event store appends (against Emmett and the previous append), projection replay, growth,
                         how long a fresh event waits to be readable while a rebuild runs
  commands               POST /api/templates at 8 clients: the service before issue 20 (--base, default its base
                         commit, built into a temporary directory) against this checkout, sides taking turns
  commands-embedded      the same in embedded mode (PGlite in a DATA_DIR per side): the service before its database
                         was made durable (--base, default that commit) against this checkout
  lists                  GET /api/templates with name__like on 10,000 and on 50,000 templates (trigram index)
  rebuild                npm run projections -- rebuild templates (the built CLI, start to exit) over 100,000
                         template events against its SQL floor (CREATE TABLE … AS SELECT and the same indexes),
                         the log vacuumed first, each run after a CHECKPOINT with no autovacuum worker running
  creates                the peers part's creates alone, with each side's CPU per write (its process's and
                         PostgreSQL's, from /proc) and --creates-rounds N rounds (default 3), by --creates-clients N
                         clients (default 8, the target's)
  peers                  creates (POST /api/templates, 8 clients) against Emmett with an inline projection, each on a fresh
                         database; one resource by id over GraphQL against PostGraphile 4.14 (installed into
                         bench/peers/postgraphile on first use) without and with a JWT, at 1 and 32 clients, on the graphql
                         part's catalog; then the rebuild against its SQL floor and name__like's growth on res-N names:
                         every ratio of the performance targets, in one table
  graphql                /api/graphql against hand-written SQL, on a seeded catalog (BENCH_GRAPHQL_DATABASE_URL),
                         then graphql-live
  graphql-live           createTemplate against POST /api/templates, and 100 subscribers' fan-out, on a fresh
                         database (BENCH_LIVE_DATABASE_URL, default infraledger_bench_live)
  --graphql-resources N  catalog size to seed up to (default 100000; templates and executors as the seed's
                         defaults for it: 1000 and 200)
  --graphql-duration S   measured seconds per run (default 10, after a 3 s warm-up: --graphql-warmup)
  --graphql-rounds N     runs per query, side and concurrency, the sides taking turns (default 2)
  --graphql-query Q,…    only these queries (resource, templates, executors, resources; default all)
Without a part, all parts run (creates only as part of peers).`;

export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

/** What one `npm run bench` invocation runs. */
export interface BenchOptions {
  readonly parts: ReadonlySet<BenchPart>;
  /** Rounds of the creates part. */
  readonly createsRounds: number;
  /** Clients of the creates part (the peers part's creates always run with 8). */
  readonly createsClients: number;
  /** The git revision the commands part compares against. */
  readonly base: string | undefined;
  readonly graphql: {
    readonly size: CatalogSize;
    readonly warmupSeconds: number;
    readonly durationSeconds: number;
    readonly rounds: number;
    /** The queries to measure (all when not told). */
    readonly queries: readonly string[] | undefined;
  };
}

const whole = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const flagsSchema = z.strictObject({
  'graphql-resources': whole(1, 10_000_000).default(100_000),
  'graphql-templates': whole(1, 1000).optional(),
  'graphql-executors': whole(1, 200).optional(),
  'graphql-duration': whole(1, 600).default(10),
  'graphql-warmup': whole(0, 600).default(3),
  'graphql-rounds': whole(1, 20).default(2),
  'creates-rounds': whole(1, 50).default(3),
  'creates-clients': whole(1, 64).default(8),
  'graphql-query': z
    .string()
    .regex(/^[a-z]+(,[a-z]+)*$/, 'must be query names separated by commas')
    .optional(),
  base: z
    .string()
    .regex(/^[\w./-]{1,100}$/, 'must be a git revision')
    .optional(),
});

/** Parses the command line after `npm run bench --`; BenchUsageError names what is wrong. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const parts = new Set<BenchPart>();
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') throw new BenchUsageError('', { cause: 'help' });
    const flag = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (flag?.[1]) {
      const value = flag[2] ?? argv[++i];
      if (value === undefined) throw new BenchUsageError(`--${flag[1]} needs a value`);
      flags[flag[1]] = value;
    } else if ((BENCH_PARTS as readonly string[]).includes(arg)) {
      parts.add(arg as BenchPart);
    } else {
      throw new BenchUsageError(`unknown part "${arg}" (parts: ${BENCH_PARTS.join(', ')})`);
    }
  }
  const parsed = flagsSchema.safeParse(flags);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option ${issue.keys.map((k) => `--${k}`).join(', ')}`
        : `--${issue.path.join('.')}: ${issue.message}`,
    );
    throw new BenchUsageError(lines.join('\n'));
  }
  const f = parsed.data;
  // The seed's own proportions: 100,000 resources → 1,000 templates, 200 executors.
  const defaults = defaultCounts(f['graphql-resources'], f['graphql-templates']);
  return {
    // Without a part named, creates run once, within peers.
    parts: parts.size > 0 ? parts : new Set(BENCH_PARTS.filter((part) => part !== 'creates')),
    base: f.base,
    createsRounds: f['creates-rounds'],
    createsClients: f['creates-clients'],
    graphql: {
      size: { resources: f['graphql-resources'], templates: defaults.templates, executors: f['graphql-executors'] ?? defaults.executors },
      warmupSeconds: f['graphql-warmup'],
      durationSeconds: f['graphql-duration'],
      rounds: f['graphql-rounds'],
      queries: f['graphql-query']?.split(','),
    },
  };
}
