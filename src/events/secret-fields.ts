import { AppError } from '../errors.js';
import type { Keyring } from './crypto.js';

/**
 * Encrypts, decrypts and redacts the secret values inside an event's JSON data.
 *
 * An event declares its secret paths as strings: `.` separates object keys and `[]` after a key means
 * "every element of this array", e.g. `configuration.clientSecret`, `configuration.secrets[].value`,
 * `variables[].value`, `matrix[][]`. Each value is encrypted with its concrete path
 * (`configuration.secrets[2].value`) as context, so a ciphertext moved to another field or element
 * no longer decrypts.
 */

/** One step of a compiled path: into an object key, or into every element of an array. */
export type SecretPathStep = { readonly kind: 'key'; readonly name: string } | { readonly kind: 'each' };

/** A validated secret path. */
export interface CompiledSecretPath {
  /** The path as declared, e.g. `configuration.secrets[].value`. */
  readonly source: string;
  readonly steps: readonly SecretPathStep[];
}

/** Secret paths validated once by {@link compileSecretPaths}. */
export interface CompiledSecretPaths {
  readonly kind: 'compiled-secret-paths';
  readonly paths: readonly CompiledSecretPath[];
}

/** Declared paths, either as written or already compiled. */
export type SecretPaths = readonly string[] | CompiledSecretPaths;

/** The mask that replaces secret values in audit views and API responses. */
export const REDACTED = '********';

// One segment: a key name followed by any number of `[]`. Names exclude the path syntax itself.
const SEGMENT = /^([^.[\]]+)((?:\[\])*)$/;
// Assigning these would reach the prototype chain instead of the data.
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

function compilePath(source: string): CompiledSecretPath {
  const steps: SecretPathStep[] = [];
  for (const segment of source.split('.')) {
    const match = SEGMENT.exec(segment);
    const name = match?.[1];
    const arrays = match?.[2];
    if (name === undefined || arrays === undefined) {
      const problem =
        segment === '' ? 'an empty segment' : segment.startsWith('[') ? '[] without a key before it' : `an invalid segment "${segment}"`;
      throw new TypeError(`secret path "${source}" has ${problem} (expected keys separated by "." with optional [] after a key)`);
    }
    if (FORBIDDEN_NAMES.has(name)) throw new TypeError(`secret path "${source}" names the reserved key "${name}"`);
    steps.push({ kind: 'key', name });
    for (let i = 0; i < arrays.length / 2; i++) steps.push({ kind: 'each' });
  }
  return { source, steps };
}

/**
 * Validates declared secret paths once, so each event does not re-parse them.
 * @throws TypeError for an invalid path (empty segment, `[]` at the start, stray brackets): a programmer mistake.
 */
export function compileSecretPaths(paths: readonly string[]): CompiledSecretPaths {
  return { kind: 'compiled-secret-paths', paths: paths.map(compilePath) };
}

// Event definitions hold their paths for the life of the process: compile each declared array once.
const compiledCache = new WeakMap<readonly string[], CompiledSecretPaths>();

function compiled(paths: SecretPaths): CompiledSecretPaths {
  if ('kind' in paths) return paths;
  let result = compiledCache.get(paths);
  if (!result) {
    result = compileSecretPaths(paths);
    compiledCache.set(paths, result);
  }
  return result;
}

/** Replaces a present value; returns the value to store at `path` (the same one to leave it). */
/** `holder` is the object that holds the value under its key (undefined for array elements). */
type Transform = (value: unknown, path: string, holder?: Readonly<Record<string, unknown>>) => unknown;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Walks `steps` from `container` and answers it with every value found there rewritten: a copy of each
 * object and array on the way to a value that changed, `container` itself where nothing did. Copying
 * only those keeps the cost in proportion to the secrets, not to the data: every event is redacted
 * for the audit log, and a deep copy of each (structuredClone) was most of what encoding and
 * redacting cost (a seed spent a twentieth of its time there).
 */
function rewrite(container: unknown, steps: readonly SecretPathStep[], index: number, prefix: string, transform: Transform): unknown {
  const step = steps[index];
  if (step === undefined) return container;
  const last = index === steps.length - 1;
  if (step.kind === 'key') {
    // Absent keys and non-object values (e.g. null where an object was expected) are left as they are.
    if (!isPlainObject(container) || !Object.hasOwn(container, step.name)) return container;
    const path = prefix === '' ? step.name : `${prefix}.${step.name}`;
    const value = container[step.name];
    const next = last ? transform(value, path, container) : rewrite(value, steps, index + 1, path, transform);
    return next === value ? container : { ...container, [step.name]: next };
  }
  if (!Array.isArray(container)) return container;
  let copy: unknown[] | undefined;
  (container as unknown[]).forEach((element, i) => {
    const path = `${prefix}[${i}]`;
    const next = last ? transform(element, path) : rewrite(element, steps, index + 1, path, transform);
    if (next !== element) (copy ??= [...(container as unknown[])])[i] = next;
  });
  return copy ?? container;
}

function apply(data: Readonly<Record<string, unknown>>, paths: SecretPaths, transform: Transform): Record<string, unknown> {
  let result: unknown = data;
  for (const path of compiled(paths).paths) result = rewrite(result, path.steps, 0, '', transform);
  return result as Record<string, unknown>;
}

/**
 * Returns `data` with every present value at `paths` replaced by
 * `keyring.encrypt(JSON.stringify(value), <concrete path>)` (the objects and arrays holding them
 * copied, the rest shared). Absent paths, `null` and `undefined` are left as they are, and so are
 * values already encrypted (so encrypting twice is harmless). Never mutates `data`; where nothing
 * changes it answers `data` itself.
 * @throws TypeError for an invalid path
 */
export function encryptSecrets(data: Readonly<Record<string, unknown>>, paths: SecretPaths, keyring: Keyring): Record<string, unknown> {
  return apply(data, paths, (value, path) =>
    value === null || value === undefined || keyring.isEncrypted(value) ? value : keyring.encrypt(JSON.stringify(value), path),
  );
}

/**
 * The inverse of {@link encryptSecrets}: `data` with every encrypted value at `paths` decrypted and
 * JSON-parsed (copied where they are, as there). Values that are not encrypted are left as they are,
 * so events written before a field was declared secret still read. Never mutates `data`; where
 * nothing changes it answers `data` itself.
 * @throws AppError `INTERNAL` from {@link Keyring.decrypt} (unknown key, tampered value, value moved
 *   to another path); TypeError for an invalid path
 */
export function decryptSecrets(data: Readonly<Record<string, unknown>>, paths: SecretPaths, keyring: Keyring): Record<string, unknown> {
  return apply(data, paths, (value, path) => (keyring.isEncrypted(value) ? parseDecrypted(keyring.decrypt(value, path), path) : value));
}

function parseDecrypted(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // No cause: JSON.parse's message quotes the text, which is the secret itself.
    throw new AppError('INTERNAL', `secret at ${path} could not be decoded: the decrypted value is not JSON`);
  }
}

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /**
   * Redacts a value only when the object holding it qualifies, e.g. a resource variable only when it
   * is `sensitive` (every variable value is encrypted in events, only sensitive ones are hidden).
   */
  readonly when?: (holder: Readonly<Record<string, unknown>>) => boolean;
}

/**
 * `data` with every present value at `paths` (plain or encrypted) replaced by {@link REDACTED} (copied
 * where they are, as there), for audit views, read models and API responses. `null`, `undefined` and
 * `''` stay as they are (nothing is stored there). The one masking of write-only values: read models
 * store what this returns. Never mutates `data`; where nothing changes it answers `data` itself.
 * @throws TypeError for an invalid path
 */
export function redactSecrets(
  data: Readonly<Record<string, unknown>>,
  paths: SecretPaths,
  options: RedactOptions = {},
): Record<string, unknown> {
  const { when } = options;
  return apply(data, paths, (value, _path, holder) =>
    value === null || value === undefined || value === '' || (when !== undefined && holder !== undefined && !when(holder))
      ? value
      : REDACTED,
  );
}

/** Options of {@link restoreRedacted}. */
export interface RestoreOptions extends RedactOptions {
  /** Prefixed to the concrete path in field issues, e.g. `configuration`. */
  readonly fieldPrefix?: string;
  /** The issue message when the mask stands where nothing is stored. */
  readonly message: string;
}

/** One field issue of {@link restoreRedacted}. */
export interface RestoreIssue {
  readonly field: string;
  readonly message: string;
}

const isStored = (value: unknown): boolean => value !== undefined && value !== null && value !== '' && value !== REDACTED;
const nameOf = (element: unknown): unknown => {
  const name = isPlainObject(element) ? element.name : undefined;
  return typeof name === 'string' ? name.trim() : name;
};

/**
 * Write-only values sent back as {@link REDACTED} keep what is stored: a copy of `input` with each
 * mask at `paths` replaced by the stored value at the same place of `stored`. Array elements are
 * matched by `name`, not by index (a client may reorder them). A mask where nothing is stored is an
 * issue naming its field: storing the literal mask would break the secret silently.
 */
export function restoreRedacted(
  input: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>> | undefined,
  paths: SecretPaths,
  options: RestoreOptions,
): { readonly restored: Record<string, unknown>; readonly errors: RestoreIssue[] } {
  const errors: RestoreIssue[] = [];
  const field = (path: string): string => (options.fieldPrefix ? `${options.fieldPrefix}.${path}` : path);
  const qualifies = (holder: unknown): boolean => options.when === undefined || (isPlainObject(holder) && options.when(holder));

  function walk(sent: unknown, kept: unknown, steps: readonly SecretPathStep[], index: number, prefix: string): void {
    const step = steps[index];
    if (step === undefined) return;
    const last = index === steps.length - 1;
    if (step.kind === 'each') {
      if (!Array.isArray(sent)) return;
      const keptElements: unknown[] = Array.isArray(kept) ? (kept as unknown[]) : [];
      (sent as unknown[]).forEach((element, i) => {
        const match = keptElements.find((old) => nameOf(old) === nameOf(element) && qualifies(old));
        walk(element, match, steps, index + 1, `${prefix}[${i}]`);
      });
      return;
    }
    if (!isPlainObject(sent) || !Object.hasOwn(sent, step.name)) return;
    const path = prefix === '' ? step.name : `${prefix}.${step.name}`;
    const keptChild = isPlainObject(kept) ? kept[step.name] : undefined;
    if (!last) return walk(sent[step.name], keptChild, steps, index + 1, path);
    if (sent[step.name] !== REDACTED || !qualifies(sent)) return;
    if (isStored(keptChild)) sent[step.name] = keptChild;
    else errors.push({ field: field(path), message: options.message });
  }

  const restored = structuredClone(input) as Record<string, unknown>;
  for (const path of compiled(paths).paths) walk(restored, stored, path.steps, 0, '');
  return { restored, errors };
}

/**
 * Every present value at `paths` in `data` (plaintext: decoded data), e.g. to mask them wherever
 * they might be printed (run logs). `null`, `undefined` and `''` are skipped. Never mutates `data`.
 * @throws TypeError for an invalid path
 */
export function secretValuesAt(data: Readonly<Record<string, unknown>>, paths: SecretPaths, options: RedactOptions = {}): unknown[] {
  const values: unknown[] = [];
  const { when } = options;
  apply(data, paths, (value, _path, holder) => {
    const skipped = value === null || value === undefined || value === '' || (when !== undefined && holder !== undefined && !when(holder));
    if (!skipped) values.push(value);
    return value;
  });
  return values;
}
