/**
 * Statements with their parameters written into the text, for sending several as one simple query
 * (one round trip; the extended protocol takes one statement per message). node-postgres and PGlite
 * send parameters as text of no declared type, which PostgreSQL reads as it reads an untyped quoted
 * literal: `'…'` in place of `$n` means the same, `$1::json` included.
 */

/** A string as a quoted literal; with backslashes, an escape string (whatever standard_conforming_strings says). */
export function quoteLiteral(text: string): string {
  const quoted = text.replaceAll("'", "''");
  return text.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/** A parameter's literal: text, numbers and booleans as node-postgres would send them; null as NULL. */
function literalOf(value: unknown, index: number): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoteLiteral(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return quoteLiteral(String(value));
  // Arrays and objects have more than one text form; callers pass them as text (an array literal, JSON).
  throw new TypeError(`parameter $${String(index + 1)} is a ${typeof value}: only text, numbers and booleans are written inline`);
}

/**
 * `text` with each `$n` replaced by the literal of `params[n - 1]`. For statements this project
 * writes, whose own text holds no `$n` inside a literal or a dollar-quoted body.
 */
export function inlineParameters(text: string, params: readonly unknown[] = []): string {
  return text.replace(/\$(\d+)\b/g, (placeholder, digits: string) => {
    const index = Number(digits) - 1;
    if (index < 0 || index >= params.length) throw new RangeError(`${placeholder} has no parameter`);
    return literalOf(params[index], index);
  });
}

/**
 * An array literal's element, quoted: PostgreSQL's array input reads backslash escapes inside quotes.
 * Most elements have nothing to escape, and plain string replacement is twice as fast as a pattern.
 */
const arrayElement = (text: string): string =>
  text.includes('"') || text.includes('\\') ? `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : `"${text}"`;

/**
 * A one-dimensional array literal of texts (none null), as node-postgres would send the array but in
 * one pass: node-postgres runs two patterns over every element, the events' JSON documents included.
 */
export function arrayLiteral(values: readonly string[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) literal += `${i === 0 ? '' : ','}${arrayElement(values[i] as string)}`;
  return `${literal}}`;
}
