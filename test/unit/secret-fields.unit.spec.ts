import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/events/crypto.js';
import { compileSecretPaths, decryptSecrets, encryptSecrets, REDACTED, redactSecrets } from '../../src/events/secret-fields.js';

const keyring = createKeyring({ active: randomBytes(32) });

const PATHS = ['configuration.clientSecret', 'configuration.secrets[].value', 'variables[].value', 'groups[].members[].token'];

/** Event data with secrets at every kind of path, plain values beside them, and a deep copy for comparisons. */
function providerData(): Record<string, unknown> {
  return {
    name: 'github',
    configuration: {
      clientId: 'public-client-id',
      clientSecret: 'plain-client-secret',
      secrets: [
        { name: 'a', value: 'plain-secret-a' },
        { name: 'b', value: { nested: 'plain-secret-b', n: 7 } },
        { name: 'c', value: null },
        { name: 'd' },
      ],
    },
    variables: [
      { key: 'PORT', value: 8080 },
      { key: 'TOKEN', value: 'plain-variable-token' },
    ],
    groups: [{ members: [{ token: 'plain-member-token-1' }, { token: 'plain-member-token-2' }] }, { members: [] }, {}],
  };
}

const PLAINTEXTS = [
  'plain-client-secret',
  'plain-secret-a',
  'plain-secret-b',
  'plain-variable-token',
  'plain-member-token-1',
  'plain-member-token-2',
];

/** The value at a concrete path, for assertions. */
function at(data: unknown, ...keys: (string | number)[]): unknown {
  return keys.reduce<unknown>((current, key) => (current as Record<string | number, unknown> | undefined)?.[key], data);
}

describe('secret fields', () => {
  describe('when encrypting an event with nested objects and arrays', () => {
    const data = providerData();
    const encrypted = encryptSecrets(data, PATHS, keyring);

    it('encrypts every present value at the declared paths', () => {
      for (const value of [
        at(encrypted, 'configuration', 'clientSecret'),
        at(encrypted, 'configuration', 'secrets', 0, 'value'),
        at(encrypted, 'configuration', 'secrets', 1, 'value'),
        at(encrypted, 'variables', 0, 'value'),
        at(encrypted, 'variables', 1, 'value'),
        at(encrypted, 'groups', 0, 'members', 0, 'token'),
        at(encrypted, 'groups', 0, 'members', 1, 'token'),
      ]) {
        expect(keyring.isEncrypted(value)).toBe(true);
      }
    });

    it('leaves no plaintext anywhere in the serialized data', () => {
      const serialized = JSON.stringify(encrypted);
      for (const plaintext of PLAINTEXTS) expect(serialized).not.toContain(plaintext);
    });

    it('keeps other fields, nulls and absent values as they are', () => {
      expect(at(encrypted, 'name')).toBe('github');
      expect(at(encrypted, 'configuration', 'clientId')).toBe('public-client-id');
      expect(at(encrypted, 'configuration', 'secrets', 0, 'name')).toBe('a');
      expect(at(encrypted, 'configuration', 'secrets', 2)).toEqual({ name: 'c', value: null });
      expect(at(encrypted, 'configuration', 'secrets', 3)).toEqual({ name: 'd' });
      expect(at(encrypted, 'groups', 1)).toEqual({ members: [] });
      expect(at(encrypted, 'groups', 2)).toEqual({});
    });

    it('binds each value to its concrete path, indices included', () => {
      const ciphertext = at(encrypted, 'configuration', 'secrets', 0, 'value') as string;
      expect(keyring.decrypt(ciphertext, 'configuration.secrets[0].value')).toBe('"plain-secret-a"');
      expect(() => keyring.decrypt(ciphertext, 'configuration.secrets[1].value')).toThrow(
        'secret could not be decrypted: authentication failed',
      );
      const token = at(encrypted, 'groups', 0, 'members', 1, 'token') as string;
      expect(keyring.decrypt(token, 'groups[0].members[1].token')).toBe('"plain-member-token-2"');
    });

    it('does not mutate its input', () => {
      expect(data).toEqual(providerData());
    });

    it('copies the objects and arrays on the way to a secret and shares the rest', () => {
      const configuration = encrypted.configuration as Record<string, unknown>;
      expect(configuration).not.toBe(data.configuration);
      expect(configuration.secrets).not.toBe(at(data, 'configuration', 'secrets'));
      // `d` holds no value to encrypt: the element is the input's own.
      expect(at(encrypted, 'configuration', 'secrets', 3)).toBe(at(data, 'configuration', 'secrets', 3));
      expect(at(encrypted, 'groups', 1)).toBe(at(data, 'groups', 1));
      // A change to a copied element of the answer leaves the input as it was.
      const input = providerData();
      const [first] = (encryptSecrets(input, PATHS, keyring).configuration as { secrets: Record<string, unknown>[] }).secrets;
      if (first) first.name = 'changed';
      expect(input).toEqual(providerData());
    });

    it('answers the input itself where there is nothing to rewrite', () => {
      const plain = { name: 'no secrets here', configuration: { clientId: 'x' } };
      expect(encryptSecrets(plain, PATHS, keyring)).toBe(plain);
      expect(redactSecrets(plain, PATHS)).toBe(plain);
      expect(decryptSecrets(plain, PATHS, keyring)).toBe(plain);
      expect(redactSecrets(data, [])).toBe(data);
    });

    it('is idempotent: encrypting again leaves the ciphertexts as they are', () => {
      expect(encryptSecrets(encrypted, PATHS, keyring)).toEqual(encrypted);
    });

    it('decrypts back to the original data, JSON types included', () => {
      expect(decryptSecrets(encrypted, PATHS, keyring)).toEqual(data);
    });
  });

  describe('when paths do not match the data', () => {
    it('leaves data without those fields, or with other shapes there, unchanged', () => {
      const data = { configuration: null, variables: { value: 'not-an-array' }, other: 1 };
      expect(encryptSecrets(data, PATHS, keyring)).toEqual(data);
      expect(redactSecrets(data, PATHS)).toEqual(data);
      expect(encryptSecrets({}, PATHS, keyring)).toEqual({});
    });

    it('encrypts every element when the path ends at an array', () => {
      const encrypted = encryptSecrets({ tokens: ['t1', 't2'] }, ['tokens[]'], keyring);
      expect((encrypted.tokens as unknown[]).every((t) => keyring.isEncrypted(t))).toBe(true);
      expect(decryptSecrets(encrypted, ['tokens[]'], keyring)).toEqual({ tokens: ['t1', 't2'] });
    });
  });

  describe('when decrypting data written before a field was secret', () => {
    it('leaves plain values untouched', () => {
      const legacy = providerData();
      expect(decryptSecrets(legacy, PATHS, keyring)).toEqual(providerData());
    });

    it('does not mutate its input', () => {
      const encrypted = encryptSecrets(providerData(), PATHS, keyring);
      const snapshot = structuredClone(encrypted);
      decryptSecrets(encrypted, PATHS, keyring);
      expect(encrypted).toEqual(snapshot);
    });
  });

  describe('when decrypting with a keyring that lacks the key', () => {
    it('fails with the unknown key id error', () => {
      const encrypted = encryptSecrets(providerData(), PATHS, keyring);
      const stranger = createKeyring({ active: randomBytes(32) });
      expect(() => decryptSecrets(encrypted, PATHS, stranger)).toThrow(
        expect.objectContaining({
          code: 'INTERNAL',
          message: `unknown key id ${keyring.activeKid}: add the key that encrypted it to SECRET_KEYS_PREVIOUS`,
        }),
      );
    });
  });

  describe('when a decrypted value is not JSON', () => {
    it('fails without quoting the decrypted text', () => {
      const data = { configuration: { clientSecret: keyring.encrypt('hunter2', 'configuration.clientSecret') } };
      let thrown: unknown;
      try {
        decryptSecrets(data, PATHS, keyring);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: 'INTERNAL',
        message: 'secret at configuration.clientSecret could not be decoded: the decrypted value is not JSON',
      });
      expect((thrown as Error).cause).toBeUndefined();
      expect((thrown as Error).message).not.toContain('hunter2');
    });
  });

  describe('when redacting', () => {
    it('masks every present non-null value, plain or encrypted, and leaves the rest', () => {
      const data = providerData();
      const redacted = redactSecrets(data, PATHS);
      expect(at(redacted, 'configuration', 'clientSecret')).toBe(REDACTED);
      expect(at(redacted, 'configuration', 'secrets')).toEqual([
        { name: 'a', value: '********' },
        { name: 'b', value: '********' },
        { name: 'c', value: null },
        { name: 'd' },
      ]);
      expect(at(redacted, 'variables')).toEqual([
        { key: 'PORT', value: '********' },
        { key: 'TOKEN', value: '********' },
      ]);
      expect(at(redacted, 'configuration', 'clientId')).toBe('public-client-id');
      expect(data).toEqual(providerData());

      const fromEncrypted = redactSecrets(encryptSecrets(data, PATHS, keyring), PATHS);
      expect(fromEncrypted).toEqual(redacted);
      for (const plaintext of PLAINTEXTS) expect(JSON.stringify(fromEncrypted)).not.toContain(plaintext);
    });
  });

  describe('when paths are compiled', () => {
    it('accepts the compiled form in place of the strings', () => {
      const compiled = compileSecretPaths(PATHS);
      const encrypted = encryptSecrets(providerData(), compiled, keyring);
      expect(decryptSecrets(encrypted, compiled, keyring)).toEqual(providerData());
      expect(redactSecrets(providerData(), compiled)).toEqual(redactSecrets(providerData(), PATHS));
    });

    it('refuses an empty segment as a programmer mistake', () => {
      for (const path of ['', 'a..b', '.a', 'a.']) {
        expect(() => compileSecretPaths([path])).toThrow(
          new TypeError(`secret path "${path}" has an empty segment (expected keys separated by "." with optional [] after a key)`),
        );
      }
    });

    it('refuses [] at the start', () => {
      expect(() => compileSecretPaths(['[].value'])).toThrow(
        new TypeError(
          'secret path "[].value" has [] without a key before it (expected keys separated by "." with optional [] after a key)',
        ),
      );
    });

    it('refuses stray brackets and reserved keys', () => {
      expect(() => compileSecretPaths(['a[0].b'])).toThrow(TypeError);
      expect(() => compileSecretPaths(['a[]b'])).toThrow(TypeError);
      expect(() => compileSecretPaths(['a.__proto__'])).toThrow(
        new TypeError('secret path "a.__proto__" names the reserved key "__proto__"'),
      );
    });

    it('refuses an invalid path passed directly to the operations', () => {
      expect(() => encryptSecrets({}, ['a..b'], keyring)).toThrow(TypeError);
      expect(() => redactSecrets({}, ['[]'])).toThrow(TypeError);
    });
  });
});
