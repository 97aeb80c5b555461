import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** How large a catalog the seed writes, and how. */
export interface SeedOptions {
  readonly resources: number;
  readonly templates: number;
  readonly executors: number;
  /** Commands in flight at once (the promise pool's size). */
  readonly concurrency: number;
  /** Starts every name, URL and slug the run writes, so runs can repeat without clashes. */
  readonly prefix: string;
}

/** The seed command's usage text. */
export const SEED_USAGE = `usage: npm run seed -- [--resources N] [--templates N] [--executors N] [--concurrency N] [--prefix text]
  --resources N     resources to create (default 1000)
  --templates N     templates (default max(10, resources/100), at most 1000)
  --executors N     executors (default max(5, templates/5), at most 200)
  --concurrency N   commands in flight at once (default 32, at most 64)
  --prefix text     starts every name, slug and URL: lower-case letters, digits and "-" (default seed-<random>)
Writes through the command path (uniqueness, references and events as over REST). In embedded mode
(no DATABASE_URL) stop the server first: one process owns DATA_DIR.`;

/** A seed command line that cannot be run; its message says why. */
export class SeedUsageError extends Error {
  override readonly name = 'SeedUsageError';
}

const count = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`));

const argsSchema = z.strictObject({
  resources: count(10_000_000).default(1000),
  templates: count(1000).optional(),
  executors: count(200).optional(),
  concurrency: count(64).default(32),
  prefix: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, 'must be 1-40 lower-case letters, digits and "-" (not at either end)')
    .optional(),
});

/** `--name value` and `--name=value` pairs; anything else is a usage error. */
function pairs(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match?.[1]) throw new SeedUsageError(`unexpected argument "${arg}"`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new SeedUsageError(`--${match[1]} needs a value`);
    if (match[1] in out) throw new SeedUsageError(`--${match[1]} given twice`);
    out[match[1]] = value;
  }
  return out;
}

/** The default template and executor counts of SEED_USAGE, for a number of resources. */
export function defaultCounts(resources: number, templates?: number): { templates: number; executors: number } {
  const t = templates ?? Math.min(1000, Math.max(10, Math.floor(resources / 100)));
  return { templates: t, executors: Math.min(200, Math.max(5, Math.floor(t / 5))) };
}

/** A fresh `seed-xxxxxx` prefix. */
export const randomPrefix = (): string => `seed-${randomBytes(3).toString('hex')}`;

/** Parses the command line (without node and the script); SeedUsageError names what is wrong. */
export function parseSeedArgs(argv: readonly string[]): SeedOptions {
  const parsed = argsSchema.safeParse(pairs(argv));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown option ${issue.keys.map((k) => `--${k}`).join(', ')}`
        : `--${issue.path.join('.')}: ${issue.message}`,
    );
    throw new SeedUsageError(lines.join('\n'));
  }
  const { resources, concurrency } = parsed.data;
  const defaults = defaultCounts(resources, parsed.data.templates);
  return {
    resources,
    templates: defaults.templates,
    executors: parsed.data.executors ?? defaults.executors,
    concurrency,
    prefix: parsed.data.prefix ?? randomPrefix(),
  };
}
