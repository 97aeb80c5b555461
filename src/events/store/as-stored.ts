/**
 * A JSON text as the value PostgreSQL's `jsonb` gives back for it, without the round trip: parsed,
 * with every object's keys in jsonb's order (shorter first, then by their UTF-8 bytes). A batch of
 * this process's own appends (port.ts, BatchCheck) is built from what the append sent: projections
 * that write a value's text (an audit diff's `{"env":…,"team":…}`) write the same text live as in a
 * rebuild, which reads the stored jsonb. Numbers need nothing: JSON.parse reads jsonb's canonical
 * form of a number to the same double as the text JSON.stringify wrote.
 */
export function parseAsStored(text: string): unknown {
  return inJsonbOrder(JSON.parse(text) as unknown);
}

function inJsonbOrder(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = inJsonbOrder(value[i]);
    return value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (const key of keys) record[key] = inJsonbOrder(record[key]);
  if (isInJsonbOrder(keys)) return record;
  // fromEntries defines each key as an own property, `__proto__` included (an assignment would set the prototype).
  return Object.fromEntries(keys.sort(compareJsonbKeys).map((key) => [key, record[key]]));
}

function isInJsonbOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (compareJsonbKeys(keys[i - 1] as string, keys[i] as string) > 0) return false;
  return true;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;

/** jsonb's key order: byte length first, then the bytes (PostgreSQL's lengthCompareJsonbString). */
function compareJsonbKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length !== y.length ? x.length - y.length : Buffer.compare(x, y);
}
