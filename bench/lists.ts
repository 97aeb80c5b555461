import os from 'node:os';
import type { Logger } from '../src/log.js';
import { createPostgresEventStore } from '../src/events/store/postgres.js';
import { createPgPool } from '../src/storage/pool.js';
import { freshDatabase } from './commands/sides.js';
import { adminToken, benchEnvironment, catchUp, openBenchService, type BenchService } from './graphql/service.js';
import { benchCodec, friendlyNames, sharedTrigramNames, type TemplateNames } from './fixtures.js';
import { seedTemplates } from './replay.js';
import { formatMs, formatRate, percentile, perSecond } from './stats.js';

/**
 * `npm run bench -- lists`: `GET /api/templates?filter={"name__like":…}` on a catalog of 10,000
 * templates and on one of 50,000 (each its own fresh database, the events written straight to the
 * store and projected by the service), 8 clients, the sizes taking turns. With the trigram index the
 * larger catalog should answer nearly as fast as the smaller. Twice: with friendly names, and with
 * the seed's `res-N`, whose names all share their leading trigrams.
 */
export const LIST_SIZES = [10_000, 50_000] as const;

/** A way of naming the catalog, and the searches that match the same templates at both sizes. */
export interface NameStyle {
  readonly name: string;
  readonly names: TemplateNames;
  /** The n-th search's fragment. */
  readonly fragment: (n: number) => string;
}

export const NAME_STYLES: readonly NameStyle[] = [
  {
    name: 'friendly names ("Service template 001234")',
    names: friendlyNames,
    // "template 0012" matches the same 100 templates in both catalogs, so both sizes answer the same pages.
    fragment: (n) => `template 00${String((n * 37) % 100).padStart(2, '0')}`,
  },
  {
    name: 'shared trigrams ("res-1234")',
    names: sharedTrigramNames,
    // In turns a narrow search ("res-5000" to "res-9999": one template) and a broad one ("res-5" to
    // "res-9": 1,111 templates, every page counted), each matching the same templates at both sizes.
    fragment: (n) => (n % 2 === 0 ? `res-${5000 + ((n * 37) % 5000)}` : `res-${5 + (n % 5)}`),
  },
];

/** One size's figures. */
export interface ListSide {
  readonly templates: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

async function seeded(
  adminUrl: string,
  templates: number,
  style: NameStyle,
  log: Logger,
): Promise<{ service: BenchService; token: string }> {
  const url = await freshDatabase(adminUrl, `infraledger_bench_lists_${templates}`);
  const env = await benchEnvironment(url);
  // Started (and bootstrapped) on the empty database; it projects the templates as they are written.
  const service = await openBenchService(env, log);
  // The service's codec must read the events: they are written with its key.
  const pool = createPgPool({ connectionString: url, max: 2 });
  try {
    const store = createPostgresEventStore({ pool });
    await seedTemplates(store, benchCodec(Buffer.from(env.SECRET_KEY ?? '', 'base64')), templates, undefined, style.names);
    await store.close();
  } finally {
    await pool.end();
  }
  await catchUp(service, () => undefined);
  // As autovacuum would leave the catalog (the bench server runs without it): statistics, and the
  // trigram indexes' pending lists merged. Left unmerged, every search also reads a pending list whose
  // length is whatever the last insert left (189 pages at 50k, 112 at 10k in one run), not the table's.
  await service.services.pool.query('VACUUM ANALYZE');
  return { service, token: await adminToken(service.baseUrl, env) };
}

/** Both sizes, rounds taking turns; each round is `requests` requests by 8 clients. */
export async function benchLists(
  adminUrl: string,
  style: NameStyle,
  log: Logger,
  say: (line: string) => void,
  rounds = 3,
  requests = 1500,
): Promise<{ style: string; sides: ListSide[]; load: number[] }> {
  const sides: { size: number; service: BenchService; token: string }[] = [];
  for (const size of LIST_SIZES) {
    sides.push({ size, ...(await seeded(adminUrl, size, style, log)) });
    say(`[lists] ${formatRate(size)} templates projected`);
  }
  const load = os.loadavg();
  const latencies = new Map<number, number[]>(LIST_SIZES.map((s) => [s, []]));
  const elapsed = new Map<number, number>(LIST_SIZES.map((s) => [s, 0]));
  try {
    let n = 0;
    const run = async (side: (typeof sides)[number], count: number): Promise<void> => {
      const started = performance.now();
      let left = count;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (left-- > 0) {
            const fragment = style.fragment(n++);
            const filter = encodeURIComponent(JSON.stringify({ name__like: fragment }));
            const at = performance.now();
            const response = await fetch(`${side.service.baseUrl}/api/templates?filter=${filter}&range=${encodeURIComponent('[0,25]')}`, {
              headers: { authorization: `Bearer ${side.token}` },
            });
            await response.arrayBuffer();
            if (!response.ok) throw new Error(`GET /api/templates answered ${response.status}`);
            if (count > 100) latencies.get(side.size)?.push(performance.now() - at);
          }
        }),
      );
      if (count > 100) elapsed.set(side.size, (elapsed.get(side.size) ?? 0) + performance.now() - started);
    };
    for (const side of sides) await run(side, 100); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await run(side, requests);
    }
  } finally {
    for (const side of sides) await side.service.close();
  }
  return {
    style: style.name,
    load,
    sides: LIST_SIZES.map((size) => {
      const sorted = (latencies.get(size) ?? []).sort((a, b) => a - b);
      return {
        templates: size,
        perSecond: perSecond(sorted.length, elapsed.get(size) ?? 0),
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
      };
    }),
  };
}

/** The lists table: each size, and the larger against the smaller. */
export function formatLists(result: { style: string; sides: ListSide[]; load: number[] }): string[] {
  const [small, large] = result.sides;
  const lines = [result.style, 'templates  |  requests/s  p50 / p99 ms'];
  for (const side of result.sides)
    lines.push(
      `${formatRate(side.templates).padStart(9)}  |  ${formatRate(side.perSecond).padStart(10)}  ${formatMs(side.p50)} / ` +
        formatMs(side.p99),
    );
  if (small && large) {
    lines.push(
      `${formatRate(large.templates)} / ${formatRate(small.templates)}: throughput ×${(large.perSecond / small.perSecond).toFixed(2)}, ` +
        `p50 ×${(large.p50 / small.p50).toFixed(2)} (target: p50 within 1.3×)`,
    );
  }
  lines.push(`name__like, 8 clients, sizes taking turns; load average ${result.load.map((l) => l.toFixed(2)).join(' ')}`);
  return lines;
}
