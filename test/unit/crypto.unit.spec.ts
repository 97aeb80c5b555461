import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import {
  createKeyring,
  isEncryptedSecret,
  keyId,
  loadOrCreateEmbeddedKey,
  parsePreviousKeys,
  parseSecretKey,
} from '../../src/events/crypto.js';

const KEY_FORMAT_MESSAGE = 'must be 32 bytes encoded as base64 or 64 hex characters (generate one with: openssl rand -base64 32)';
const CONTEXT = 'configuration.clientSecret';

/** Replaces one byte of the base64url payload so the value stays well-formed but no longer authenticates. */
function tamper(ciphertext: string): string {
  const cut = ciphertext.lastIndexOf(':') + 1;
  const payload = Buffer.from(ciphertext.slice(cut), 'base64url');
  payload[payload.length - 20] = (payload[payload.length - 20] ?? 0) ^ 0x01;
  return ciphertext.slice(0, cut) + payload.toString('base64url');
}

describe('crypto keyring', () => {
  describe('when encrypting and decrypting with one key', () => {
    const keyring = createKeyring({ active: randomBytes(32) });

    it('returns the plaintext it was given', () => {
      const ciphertext = keyring.encrypt('s3cr3t – ünïcødé ✓', CONTEXT);
      expect(keyring.decrypt(ciphertext, CONTEXT)).toBe('s3cr3t – ünïcødé ✓');
    });

    it('round-trips an empty plaintext', () => {
      expect(keyring.decrypt(keyring.encrypt('', CONTEXT), CONTEXT)).toBe('');
    });

    it('writes enc:v1:<kid>:<base64url> and never the plaintext', () => {
      const ciphertext = keyring.encrypt('hunter2-hunter2', CONTEXT);
      expect(ciphertext).toMatch(/^enc:v1:[0-9a-f]{16}:[A-Za-z0-9_-]+$/);
      expect(ciphertext.split(':')[2]).toBe(keyring.activeKid);
      expect(ciphertext).not.toContain('hunter2');
      // 12-byte IV + plaintext + 16-byte tag.
      expect(Buffer.from(ciphertext.split(':')[3] ?? '', 'base64url').length).toBe(12 + 'hunter2-hunter2'.length + 16);
    });

    it('produces a different ciphertext on each encryption of the same value', () => {
      const first = keyring.encrypt('same', CONTEXT);
      const second = keyring.encrypt('same', CONTEXT);
      expect(first).not.toBe(second);
      expect(keyring.decrypt(first, CONTEXT)).toBe(keyring.decrypt(second, CONTEXT));
    });

    it('recognises only ciphertext strings as encrypted', () => {
      expect(keyring.isEncrypted(keyring.encrypt('x', CONTEXT))).toBe(true);
      expect(keyring.isEncrypted('plain')).toBe(false);
      expect(keyring.isEncrypted('enc:v1:short')).toBe(false);
      expect(keyring.isEncrypted(42)).toBe(false);
      expect(keyring.isEncrypted(null)).toBe(false);
      expect(isEncryptedSecret(keyring.encrypt('x', CONTEXT))).toBe(true);
    });
  });

  describe('when the kid is derived from a key', () => {
    it('is the first 16 hex chars of the SHA-256 of the key bytes', () => {
      const key = randomBytes(32);
      expect(keyId(key)).toBe(createHash('sha256').update(key).digest('hex').slice(0, 16));
      expect(createKeyring({ active: key }).activeKid).toBe(keyId(key));
      expect(createKeyring({ active: Buffer.from(key) }).activeKid).toBe(keyId(key));
    });
  });

  describe('when decryption must fail', () => {
    const keyring = createKeyring({ active: randomBytes(32) });

    it('refuses a ciphertext read under another context', () => {
      const ciphertext = keyring.encrypt('value', 'configuration.secrets[0].value');
      expect(() => keyring.decrypt(ciphertext, 'configuration.secrets[1].value')).toThrow(
        expect.objectContaining({ code: 'INTERNAL', message: 'secret could not be decrypted: authentication failed' }),
      );
    });

    it('refuses a tampered ciphertext', () => {
      const ciphertext = keyring.encrypt('value', CONTEXT);
      expect(() => keyring.decrypt(tamper(ciphertext), CONTEXT)).toThrow(
        expect.objectContaining({ code: 'INTERNAL', message: 'secret could not be decrypted: authentication failed' }),
      );
    });

    it('refuses a ciphertext from a key it does not hold and names the kid', () => {
      const other = createKeyring({ active: randomBytes(32) });
      const ciphertext = other.encrypt('value', CONTEXT);
      let thrown: unknown;
      try {
        keyring.decrypt(ciphertext, CONTEXT);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({
        code: 'INTERNAL',
        message: `unknown key id ${other.activeKid}: add the key that encrypted it to SECRET_KEYS_PREVIOUS`,
      });
    });

    it('refuses malformed strings without echoing them', () => {
      for (const malformed of [
        'plain-secret-value',
        'enc:v2:0123456789abcdef:AAAA',
        `enc:v1:NOTAKID:${'A'.repeat(40)}`,
        'enc:v1:0123456789abcdef:***',
      ]) {
        let thrown: unknown;
        try {
          keyring.decrypt(malformed, CONTEXT);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(AppError);
        expect(thrown).toMatchObject({
          code: 'INTERNAL',
          message: 'secret could not be decrypted: malformed ciphertext (expected enc:v1:<kid>:<base64url>)',
        });
        expect((thrown as Error).message).not.toContain(malformed);
      }
    });
  });

  describe('when the key is rotated', () => {
    it('decrypts old values with the previous key and encrypts new ones with the active key', () => {
      const keyA = randomBytes(32);
      const keyB = randomBytes(32);
      const before = createKeyring({ active: keyA });
      const old = before.encrypt('written under A', CONTEXT);

      const after = createKeyring({ active: keyB, previous: [keyA] });
      expect(after.decrypt(old, CONTEXT)).toBe('written under A');
      const fresh = after.encrypt('written under B', CONTEXT);
      expect(after.activeKid).toBe(keyId(keyB));
      expect(fresh.split(':')[2]).toBe(keyId(keyB));
      expect(() => before.decrypt(fresh, CONTEXT)).toThrow(`unknown key id ${keyId(keyB)}`);
    });

    it('refuses keys that are not 32 bytes', () => {
      expect(() => createKeyring({ active: randomBytes(16) })).toThrow(new TypeError('secret keys must be 32 bytes, got 16'));
      expect(() => createKeyring({ active: randomBytes(32), previous: [randomBytes(31)] })).toThrow(TypeError);
    });

    it('keeps its own copy of the keys', () => {
      const key = randomBytes(32);
      const keyring = createKeyring({ active: key });
      const ciphertext = keyring.encrypt('value', CONTEXT);
      key.fill(0);
      expect(keyring.decrypt(ciphertext, CONTEXT)).toBe('value');
    });
  });
});

describe('parseSecretKey', () => {
  const key = randomBytes(32);

  describe('when given a valid encoding of 32 bytes', () => {
    it('accepts base64 with and without padding', () => {
      expect(parseSecretKey(key.toString('base64'))).toEqual(key);
      expect(parseSecretKey(key.toString('base64').replace(/=+$/, ''))).toEqual(key);
    });

    it('accepts url-safe base64 with and without padding', () => {
      const urlSafe = Buffer.from('fb'.repeat(32), 'hex'); // encodes to "-" and "_" characters
      expect(parseSecretKey(urlSafe.toString('base64url'))).toEqual(urlSafe);
      expect(parseSecretKey(`${urlSafe.toString('base64url')}=`)).toEqual(urlSafe);
      expect(parseSecretKey(key.toString('base64url'))).toEqual(key);
    });

    it('accepts 64 hex characters in either case', () => {
      expect(parseSecretKey(key.toString('hex'))).toEqual(key);
      expect(parseSecretKey(key.toString('hex').toUpperCase())).toEqual(key);
    });

    it('ignores a trailing newline', () => {
      expect(parseSecretKey(`${key.toString('base64')}\n`)).toEqual(key);
    });
  });

  describe('when given anything else', () => {
    const refused = {
      'a short password': 'correct horse battery',
      '16 bytes of base64': randomBytes(16).toString('base64'),
      '48 bytes of base64': randomBytes(48).toString('base64'),
      '62 hex characters': randomBytes(31).toString('hex'),
      'mixed base64 alphabets': `+_${randomBytes(32).toString('base64url').slice(2)}`,
      'an empty string': '',
    };

    for (const [what, text] of Object.entries(refused)) {
      it(`refuses ${what} with a message that says what is accepted and does not echo the key`, () => {
        let thrown: unknown;
        try {
          parseSecretKey(text);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ConfigError);
        expect((thrown as Error).message).toBe(`SECRET_KEY ${KEY_FORMAT_MESSAGE}`);
        if (text !== '') expect((thrown as Error).message).not.toContain(text);
      });
    }
  });
});

describe('parsePreviousKeys', () => {
  describe('when given a comma-separated list', () => {
    it('parses every key in any accepted format, ignoring blanks', () => {
      const a = randomBytes(32);
      const b = randomBytes(32);
      expect(parsePreviousKeys(` ${a.toString('base64')} ,${b.toString('hex')},`)).toEqual([a, b]);
    });

    it('yields no key when unset or empty', () => {
      expect(parsePreviousKeys(undefined)).toEqual([]);
      expect(parsePreviousKeys('')).toEqual([]);
    });

    it('names the bad entry without echoing it', () => {
      const good = randomBytes(32).toString('base64');
      expect(() => parsePreviousKeys(`${good},not-a-key`)).toThrow(new ConfigError(`SECRET_KEYS_PREVIOUS entry 2 ${KEY_FORMAT_MESSAGE}`));
    });
  });
});

describe('loadOrCreateEmbeddedKey', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-key-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('when no key file exists', () => {
    it('creates the directory and a base64 key file with mode 0600, then reuses it', async () => {
      const dataDir = path.join(dir, 'nested', 'data');
      const first = await loadOrCreateEmbeddedKey(dataDir);
      expect(first.created).toBe(true);
      expect(first.key.length).toBe(32);

      const file = path.join(dataDir, 'secret.key');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, 'utf8')).toBe(`${first.key.toString('base64')}\n`);

      const second = await loadOrCreateEmbeddedKey(dataDir);
      expect(second.created).toBe(false);
      expect(second.key).toEqual(first.key);
    });

    it('gives two concurrent callers the same key and creates it once', async () => {
      const results = await Promise.all([loadOrCreateEmbeddedKey(dir), loadOrCreateEmbeddedKey(dir), loadOrCreateEmbeddedKey(dir)]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const [first, ...others] = results;
      for (const other of others) expect(other.key).toEqual(first.key);
      expect(await readFile(path.join(dir, 'secret.key'), 'utf8')).toBe(`${first.key.toString('base64')}\n`);
    });
  });

  describe('when a key file exists', () => {
    it('reads it, tolerating a trailing newline and hex', async () => {
      const key = randomBytes(32);
      await writeFile(path.join(dir, 'secret.key'), `${key.toString('hex')}\n`);
      expect(await loadOrCreateEmbeddedKey(dir)).toEqual({ key, created: false });
    });

    it('refuses a file that holds no key without echoing its content', async () => {
      const file = path.join(dir, 'secret.key');
      await writeFile(file, 'garbage-that-is-not-a-key\n');
      await expect(loadOrCreateEmbeddedKey(dir)).rejects.toThrow(new ConfigError(`the key file ${file} ${KEY_FORMAT_MESSAGE}`));
    });
  });
});
