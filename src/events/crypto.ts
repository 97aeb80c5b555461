import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';

/**
 * The keyring that encrypts secret values inside events (AES-256-GCM).
 *
 * Ciphertext format: `enc:v1:<kid>:<base64url(iv ‖ ciphertext ‖ tag)>`. The key id travels with each
 * value so that after a rotation old events still name the key that can open them, and the caller's
 * context (the field path) is bound as additional authenticated data so a ciphertext copied into
 * another field fails to decrypt instead of silently revealing its value there.
 */

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'enc:v1:';
// The payload holds at least an IV and a tag (an empty plaintext): 28 bytes are 38 base64url chars.
// Requiring that much keeps short plain strings that happen to start with "enc:v1:" from passing as ciphertext.
const CIPHERTEXT = /^enc:v1:([0-9a-f]{16}):([A-Za-z0-9_-]{38,})$/;
const KEY_FILE = 'secret.key';

/** Encrypts with the active key; decrypts with the active key or any previous one. */
export interface Keyring {
  /** Id of the key new encryptions use: first 16 hex chars of SHA-256 of the key bytes. */
  readonly activeKid: string;
  /**
   * Encrypts `plaintext` with a fresh random IV, binding `context` (the field path) as AAD.
   * @returns `enc:v1:<kid>:<base64url(iv ‖ ciphertext ‖ tag)>`
   */
  encrypt(plaintext: string, context: string): string;
  /**
   * Decrypts a value produced by {@link Keyring.encrypt} with the same `context`.
   * @throws AppError `INTERNAL` when the value is malformed, its key is unknown, or authentication fails
   *   (tampered value or wrong context). Messages never contain plaintext or key bytes.
   */
  decrypt(ciphertext: string, context: string): string;
  /** True for a string in the ciphertext format (whether or not this keyring holds its key). */
  isEncrypted(value: unknown): value is string;
}

/** Options of {@link createKeyring}. */
export interface KeyringOptions {
  /** The 32-byte key that encrypts new values. */
  readonly active: Buffer;
  /** Retired 32-byte keys, kept only to decrypt values written before a rotation. */
  readonly previous?: readonly Buffer[];
}

/** Key id of a raw key: the first 16 hex chars of its SHA-256, stable and revealing nothing of the key. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 chars plus one optional pad; either alphabet, but not a mix of both.
const BASE64_KEY = /^(?:[A-Za-z0-9+/]{43}|[A-Za-z0-9_-]{43})=?$/;

/**
 * Parses a 32-byte key written as base64 (standard or url-safe, padded or not) or as 64 hex chars.
 * Surrounding whitespace is ignored (env files and key files often end with a newline).
 * @param name what to call the key in the error message (e.g. `SECRET_KEYS_PREVIOUS entry 2`)
 * @throws ConfigError saying which formats are accepted; the message never echoes the key text.
 */
export function parseSecretKey(text: string, name = 'SECRET_KEY'): Buffer {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, 'hex');
  // Node's base64 decoder reads both alphabets; the regex above already fixed the length to 32 bytes.
  if (BASE64_KEY.test(trimmed)) return Buffer.from(trimmed, 'base64');
  throw new ConfigError(`${name} must be 32 bytes encoded as base64 or 64 hex characters (generate one with: openssl rand -base64 32)`);
}

/**
 * Parses SECRET_KEYS_PREVIOUS: a comma-separated list of keys in the formats of {@link parseSecretKey}.
 * Unset, empty and blank entries (e.g. a trailing comma) yield no key.
 * @throws ConfigError naming the 1-based entry that is not a valid key, without echoing it.
 */
export function parsePreviousKeys(text: string | undefined): Buffer[] {
  if (text === undefined) return [];
  const entries = text.split(',').map((entry) => entry.trim());
  const keys: Buffer[] = [];
  entries.forEach((entry, index) => {
    if (entry !== '') keys.push(parseSecretKey(entry, `SECRET_KEYS_PREVIOUS entry ${index + 1}`));
  });
  return keys;
}

const decryptionError = (problem: string, cause?: unknown): AppError =>
  new AppError('INTERNAL', `secret could not be decrypted: ${problem}`, cause === undefined ? {} : { cause });

/**
 * Builds the keyring from the active key and any previous keys (key rotation: only the active key
 * encrypts; every key decrypts what it encrypted).
 * @throws TypeError when a key is not exactly 32 bytes (callers parse keys with {@link parseSecretKey}).
 */
export function createKeyring(options: KeyringOptions): Keyring {
  const keys = new Map<string, Buffer>();
  for (const key of [...(options.previous ?? []), options.active]) {
    if (key.length !== KEY_BYTES) throw new TypeError(`secret keys must be ${KEY_BYTES} bytes, got ${key.length}`);
    // A private copy: the caller may reuse or zero its buffer.
    keys.set(keyId(key), Buffer.from(key));
  }
  const activeKid = keyId(options.active);
  const activeKey = Buffer.from(options.active);

  return {
    activeKid,

    encrypt(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, activeKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const payload = Buffer.concat([iv, body, cipher.getAuthTag()]);
      return `${PREFIX}${activeKid}:${payload.toString('base64url')}`;
    },

    decrypt(ciphertext, context) {
      const match = CIPHERTEXT.exec(ciphertext);
      const kid = match?.[1];
      const encoded = match?.[2];
      // Never echo the input: a caller may pass a plain secret here by mistake.
      if (kid === undefined || encoded === undefined) throw decryptionError('malformed ciphertext (expected enc:v1:<kid>:<base64url>)');
      const key = keys.get(kid);
      if (!key) throw new AppError('INTERNAL', `unknown key id ${kid}: add the key that encrypted it to SECRET_KEYS_PREVIOUS`);
      const payload = Buffer.from(encoded, 'base64url');
      if (payload.length < IV_BYTES + TAG_BYTES) throw decryptionError('malformed ciphertext (too short)');
      const iv = payload.subarray(0, IV_BYTES);
      const tag = payload.subarray(payload.length - TAG_BYTES);
      const body = payload.subarray(IV_BYTES, payload.length - TAG_BYTES);
      try {
        const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch (error) {
        // GCM cannot tell a tampered value from a wrong context: both fail the tag check.
        throw decryptionError('authentication failed', error);
      }
    },

    isEncrypted: isEncryptedSecret,
  };
}

/** True for a string in the `enc:v1:<kid>:<base64url>` format; usable without a keyring (e.g. redaction). */
export function isEncryptedSecret(value: unknown): value is string {
  return typeof value === 'string' && CIPHERTEXT.test(value);
}

const isErrnoException = (error: unknown, code: string): boolean =>
  error instanceof Error && 'code' in error && (error as NodeJS.ErrnoException).code === code;

type KeyFile = { readonly state: 'missing' } | { readonly state: 'empty' } | { readonly state: 'present'; readonly key: Buffer };

async function readKeyFile(file: string): Promise<KeyFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isErrnoException(error, 'ENOENT')) return { state: 'missing' };
    throw error;
  }
  // Empty means another process created the file exclusively but has not written the key yet.
  if (text.trim() === '') return { state: 'empty' };
  return { state: 'present', key: parseSecretKey(text, `the key file ${file}`) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait for a concurrent creator to finish writing the key file before giving up. */
const EMPTY_FILE_WAIT_MS = 2000;
const EMPTY_FILE_POLL_MS = 20;

/** Reads a key file another process has created, waiting while it is still empty. */
async function readWrittenKeyFile(file: string): Promise<Buffer> {
  for (let waited = 0; ; waited += EMPTY_FILE_POLL_MS) {
    const read = await readKeyFile(file);
    if (read.state === 'present') return read.key;
    if (read.state === 'missing') throw new ConfigError(`the key file ${file} disappeared while it was being created`);
    if (waited >= EMPTY_FILE_WAIT_MS) {
      throw new ConfigError(`the key file ${file} is empty: delete it to generate a new key, or restore the key it held`);
    }
    await sleep(EMPTY_FILE_POLL_MS);
  }
}

/**
 * Embedded mode: the secret key lives in `<dataDir>/secret.key` (base64, one line, mode 0600).
 * Reads it when present; otherwise creates the directory and a new random key. The create is
 * exclusive (`wx`) so two processes starting together cannot overwrite each other's key (which
 * would make the loser's encrypted values unreadable): the one that loses reads the winner's key.
 * @returns the key and whether this call created it
 * @throws ConfigError when the file holds something other than a key
 */
export async function loadOrCreateEmbeddedKey(dataDir: string): Promise<{ key: Buffer; created: boolean }> {
  const file = path.join(dataDir, KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing.state === 'present') return { key: existing.key, created: false };
  if (existing.state === 'empty') return { key: await readWrittenKeyFile(file), created: false };

  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(KEY_BYTES);
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key, created: true };
  } catch (error) {
    if (!isErrnoException(error, 'EEXIST')) throw error;
    return { key: await readWrittenKeyFile(file), created: false };
  }
}
