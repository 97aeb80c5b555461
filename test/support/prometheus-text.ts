/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), independent of the
 * client library that wrote it: every sample must belong to a family declared by `# TYPE`, names and
 * labels must be well formed, label values unescaped, values numbers; a histogram's buckets must be
 * cumulative and its `+Inf` bucket equal its `_count`. Anything else throws, naming the line.
 */

/** One series: its labels (without `le` for histograms) and value (a histogram's count). */
export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  /** Histograms only. */
  readonly sum?: number;
  readonly buckets?: ReadonlyMap<string, number>;
}

/** A metric family: its type, help and series. */
export interface Family {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly series: Series[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(\s+-?\d+)?$/;

/** As Prometheus reads values (Go's ParseFloat): `NaN` and `Inf` in any case, with an optional sign. */
function parseValue(text: string, line: string): number {
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new SyntaxError(`not a number in: ${line}`);
  return value;
}

function parseLabels(text: string | undefined, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!text) return labels;
  let rest = text.slice(1, -1);
  while (rest.length > 0) {
    const match = /^([^=\s]+)="((?:[^"\\]|\\.)*)"\s*(?:,\s*)?/.exec(rest);
    if (!match?.[1] || match[2] === undefined || !LABEL.test(match[1])) throw new SyntaxError(`malformed labels in: ${line}`);
    if (match[1] in labels) throw new SyntaxError(`label ${match[1]} twice in: ${line}`);
    labels[match[1]] = match[2].replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/** A histogram series gathered from its `_bucket`, `_sum` and `_count` lines. */
interface HistogramParts {
  labels: Record<string, string>;
  sum?: number;
  count?: number;
  buckets: Map<string, number>;
}

const keyOf = (labels: Record<string, string>): string =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== 'le')
      .sort(),
  );

/** Parses one scrape into its families, by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const histogramParts = new Map<string, Map<string, HistogramParts>>();
  const familyOf = (sampleName: string): { family: Family; suffix: string } | undefined => {
    const exact = families.get(sampleName);
    if (exact) return { family: exact, suffix: '' };
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (!sampleName.endsWith(suffix)) continue;
      const family = families.get(sampleName.slice(0, -suffix.length));
      if (family && (family.type === 'histogram' || family.type === 'summary')) return { family, suffix };
    }
    return undefined;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!meta) continue; // a plain comment
      const [, kind, name = '', rest = ''] = meta;
      if (!NAME.test(name)) throw new SyntaxError(`bad metric name in: ${line}`);
      const existing = families.get(name);
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new SyntaxError(`bad type in: ${line}`);
        if (existing?.series.length) throw new SyntaxError(`TYPE after samples in: ${line}`);
        families.set(name, { name, type: rest as Family['type'], help: existing?.help ?? '', series: [] });
      } else {
        families.set(name, { name, type: existing?.type ?? 'untyped', help: rest, series: existing?.series ?? [] });
      }
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample?.[1] || sample[3] === undefined) throw new SyntaxError(`malformed sample: ${line}`);
    const found = familyOf(sample[1]);
    if (!found) throw new SyntaxError(`sample of an undeclared family: ${line}`);
    const labels = parseLabels(sample[2], line);
    const value = parseValue(sample[3], line);
    const { family, suffix } = found;
    if (family.type !== 'histogram') {
      family.series.push({ labels, value });
      continue;
    }
    const parts = histogramParts.get(family.name) ?? new Map<string, HistogramParts>();
    histogramParts.set(family.name, parts);
    const key = keyOf(labels);
    const { le, ...own } = labels;
    const entry: HistogramParts = parts.get(key) ?? { labels: own, buckets: new Map<string, number>() };
    parts.set(key, entry);
    if (suffix === '_bucket') {
      if (le === undefined) throw new SyntaxError(`bucket without le: ${line}`);
      entry.buckets.set(le, value);
    } else if (suffix === '_sum') entry.sum = value;
    else if (suffix === '_count') entry.count = value;
    else throw new SyntaxError(`histogram sample without a suffix: ${line}`);
  }
  for (const [name, parts] of histogramParts) {
    const family = families.get(name);
    if (!family) continue;
    for (const entry of parts.values()) {
      const bounds = [...entry.buckets.entries()].sort(([a], [b]) => parseValue(a, name) - parseValue(b, name));
      for (let i = 1; i < bounds.length; i++) {
        if ((bounds[i]?.[1] ?? 0) < (bounds[i - 1]?.[1] ?? 0)) throw new SyntaxError(`${name}: buckets not cumulative`);
      }
      if (entry.count === undefined || entry.sum === undefined) throw new SyntaxError(`${name}: histogram without _count or _sum`);
      if (entry.buckets.get('+Inf') !== entry.count) throw new SyntaxError(`${name}: +Inf bucket differs from _count`);
      family.series.push({ labels: entry.labels, value: entry.count, sum: entry.sum, buckets: entry.buckets });
    }
  }
  return families;
}

/** The value (a histogram's count) of the series of `name` whose labels include `labels`. */
export function seriesValue(families: Map<string, Family>, name: string, labels: Record<string, string>): number | undefined {
  return families.get(name)?.series.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
