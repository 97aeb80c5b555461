/**
 * CSV as RFC 4180 writes it (comma, CRLF, fields quoted when they hold a quote, comma or line
 * break), safe to open in a spreadsheet: a cell that starts like a formula (`=`, `+`, `-`, `@`, tab,
 * carriage return) gets a leading `'`, so `=HYPERLINK(…)` in an entity name stays text (OWASP "CSV
 * injection").
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: null and undefined are empty; numbers and booleans as written; text neutralised and quoted when needed. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line, CRLF-terminated. */
export const csvLine = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * Which of `offered` the request's `Accept` prefers (quality values, then the order of `offered`
 * on a tie); the first when the header is absent or names none of them. Wildcards count as 0.001
 * less than an exact match, so `*\/*` alone keeps the default.
 */
export function preferredType(accept: string | undefined, offered: readonly [string, ...string[]]): string {
  if (!accept) return offered[0];
  let best = offered[0];
  let bestQuality = -1;
  for (const type of offered) {
    const [major] = type.split('/');
    let quality = 0;
    for (const part of accept.split(',')) {
      const [range = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const value = q === undefined ? 1 : Number(q.slice(2));
      if (!Number.isFinite(value)) continue;
      const exact = range === type;
      const wildcard = range === '*/*' || range === `${major}/*`;
      if (exact) quality = Math.max(quality, value);
      else if (wildcard) quality = Math.max(quality, value - 0.001);
    }
    if (quality > bestQuality) {
      best = type;
      bestQuality = quality;
    }
  }
  return best;
}
