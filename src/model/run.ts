import type { LifecycleState } from './lifecycle.js';

/**
 * Runs (docs/contract.md §2, "Runs"): each `execute` of a resource queues a run, which the runner
 * starts and ends with `succeed` or `fail`. A run is derived from the resource's lifecycle events
 * (never written on its own); its log is what the runner appends, kept outside the event store.
 */

/** What a run does: `apply` brings the resource up (or re-applies it), `destroy` tears it down. */
export const RUN_ACTIONS = ['apply', 'destroy'] as const;
/** Where a run is: queued by `execute`, `in_progress` after `start`, then `succeeded` or `failed`; `cancelled` while queued. */
export const RUN_STATUSES = ['queued', 'in_progress', 'succeeded', 'failed', 'cancelled'] as const;

/** What a run does. */
export type RunAction = (typeof RUN_ACTIONS)[number];
/** Where a run is. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The action of a run queued while the resource is in `state` (an execute in `destroy` destroys). */
export const runActionOf = (state: LifecycleState): RunAction => (state === 'destroy' ? 'destroy' : 'apply');

/** Whether a run still takes log lines (it has not ended). */
export const isOpenRun = (status: string): boolean => status === 'queued' || status === 'in_progress';

/** What replaces a secret value in a log line. */
export const LOG_MASK = '********';

/** Shorter values are not masked: masking every `a` or `10` would make logs unreadable, and such values guard nothing. */
export const MIN_MASKED_LENGTH = 4;

/** Lines of a multi-line secret (a PEM key, a JSON key file) are masked on their own from this length. */
const MIN_MASKED_LINE_LENGTH = 8;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Encoded forms shorter than this are not masked (a base64 fragment of a few characters matches anything). */
const MIN_ENCODED_LENGTH = 6;

/**
 * The parts of `bytes`' base64 that do not depend on what stands around them, for each of the three
 * alignments it can have inside a longer encoded text (`Authorization: Basic base64(user:secret)`):
 * the characters mixing its bits with a neighbour's are left out. Standard and URL-safe alphabets.
 */
function base64Forms(bytes: Buffer): string[] {
  const found: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : offset + 1;
    const tail = (offset + bytes.length) % 3;
    const inner = encoded.replace(/=+$/, '').slice(start, tail === 0 ? undefined : -1);
    if (inner.length >= MIN_ENCODED_LENGTH) found.push(inner, inner.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return found;
}

/**
 * What a secret looks like once a tool printed it encoded: base64 (any alignment), hex, URL- and
 * form-encoded, JSON-escaped, and upper- or lower-cased (hex dumps, headers, shouted config).
 */
function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const escaped = JSON.stringify(value).slice(1, -1);
  return [
    ...base64Forms(bytes),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    escaped,
    value.toUpperCase(),
    value.toLowerCase(),
  ].filter((form) => form !== value && form.length >= MIN_MASKED_LENGTH);
}

/**
 * Every text a stored secret value may show up as in a log: itself, its lines, the leaves of a JSON
 * value, and each of those encoded as tools print them.
 */
function forms(value: unknown, into: Set<string>): void {
  if (typeof value === 'number' || typeof value === 'boolean') return forms(String(value), into);
  if (Array.isArray(value)) return value.forEach((element) => forms(element, into));
  if (isRecord(value)) return Object.values(value).forEach((element) => forms(element, into));
  if (typeof value !== 'string' || value.length < MIN_MASKED_LENGTH) return;
  into.add(value);
  for (const form of encodedForms(value)) into.add(form);
  for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_LINE_LENGTH) into.add(line.trim());
  // A key file stored as JSON text is printed decoded too (a private key with real line breaks).
  if (/^\s*[[{]/.test(value)) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'object' && parsed !== null) forms(parsed, into);
    } catch {
      // Not JSON: the text and its lines are enough.
    }
  }
}

/**
 * The texts to mask in a log for these stored secret values (strings, numbers, JSON values), longest
 * first so that a secret containing another is masked whole.
 */
export function maskedForms(values: readonly unknown[]): string[] {
  const all = new Set<string>();
  for (const value of values) forms(value, all);
  return [...all].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each form (from maskedForms) replaced by {@link LOG_MASK}. */
export function maskSecrets(text: string, masked: readonly string[]): string {
  let out = text;
  for (const secret of masked) if (out.includes(secret)) out = out.split(secret).join(LOG_MASK);
  return out;
}

/** The longest prefix of `text` that is at most `maxBytes` bytes of UTF-8, never cutting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // A continuation byte (10xxxxxx) at the cut means the character started before it: cut before that start.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** The line that ends a run's log once it reached its bound. */
export const truncationMarker = (maxBytes: number): string =>
  `\n[infraledger: this run's log reached ${maxBytes} bytes and was truncated; later output was dropped]\n`;
