import { describe, expect, it } from 'vitest';
import { passwordHasher } from '../../src/auth/passwords.js';
import { passwordProblem } from '../../src/password-policy.js';

describe('the password policy (ASVS 6.2.1, 6.2.4)', () => {
  it('refuses fewer than 12 characters, counted as a person counts them', () => {
    expect(passwordProblem('elevenchars')).toBe('at least 12 characters');
    // Eleven emoji are eleven characters, though 22 UTF-16 units.
    expect(passwordProblem('😀'.repeat(11))).toBe('at least 12 characters');
    expect(passwordProblem('😀🚀🌍🎉🔥💡📦🧩🛠️🎯🧪🪐')).toBeUndefined();
  });

  it('refuses more than 1024 characters', () => {
    expect(passwordProblem('x'.repeat(1025))).toBe('at most 1024 characters');
    expect(passwordProblem('x'.repeat(1_000_000))).toBe('at most 1024 characters');
  });

  it('refuses the common passwords of the list, whatever their case, and accepts an uncommon one', () => {
    for (const common of ['password1234', 'PASSWORD1234', 'qwertyuiop123', '1qaz2wsx3edc', '123456789012']) {
      expect(passwordProblem(common), common).toMatch(/^is one of the most common passwords/);
    }
    expect(passwordProblem('correct horse battery staple')).toBeUndefined();
  });

  it('refuses repeated, sequential and dictionary-plus-digits passwords (the strength estimator), saying why', () => {
    expect(passwordProblem('aaaaaaaaaaaa')).toMatch(/^repeats one character or a short group: it could be guessed in about 10\^2 tries/);
    expect(passwordProblem('111111111111')).toMatch(/^repeats one character or a short group/);
    expect(passwordProblem('abcdefghijkl')).toMatch(/^is a sequence such as abcd or 1234/);
    expect(passwordProblem('Password123!')).toMatch(/^is a common password with a few changes/);
    expect(passwordProblem('welcome12345')).toMatch(/^is a common password with a few changes/);
    expect(passwordProblem('zq8#Lm2!vR9p')).toBeUndefined();
  });
});

describe('password hashes: which need a rehash', () => {
  it('rehashes hashes made with weaker parameters than scrypt N=2^17, r=8, p=1 by default, and nothing else', () => {
    const hasher = passwordHasher();
    const needsRehash = (stored: string): boolean => hasher.needsRehash(stored);
    expect(needsRehash('scrypt$32768$8$1$c2FsdA==$aGFzaA==')).toBe(true);
    expect(needsRehash('scrypt$131072$4$1$c2FsdA==$aGFzaA==')).toBe(true);
    expect(needsRehash('scrypt$131072$8$1$c2FsdA==$aGFzaA==')).toBe(false);
    expect(needsRehash('scrypt$262144$8$1$c2FsdA==$aGFzaA==')).toBe(false);
    expect(needsRehash('bcrypt$whatever')).toBe(false);
  });

  it('measures against its own cost: raising PASSWORD_HASH_COST rehashes, lowering it does not', () => {
    expect(passwordHasher(18).needsRehash('scrypt$131072$8$1$c2FsdA==$aGFzaA==')).toBe(true);
    expect(passwordHasher(14).needsRehash('scrypt$131072$8$1$c2FsdA==$aGFzaA==')).toBe(false);
    expect(passwordHasher(14).needsRehash('scrypt$8192$8$1$c2FsdA==$aGFzaA==')).toBe(true);
  });
});

describe('password hashes: cost', () => {
  it('hashes with N = 2^cost, r=8, p=1, and verifies what it hashed (and nothing else)', async () => {
    const hasher = passwordHasher(14);
    const stored = await hasher.hash('a long enough password');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await hasher.verify('a long enough password', stored)).toBe(true);
    expect(await hasher.verify('a long enough passworD', stored)).toBe(false);
    expect(await hasher.verify('a long enough password', null)).toBe(false);
    // A hash made at another cost still verifies: the parameters travel with it.
    expect(await passwordHasher(15).verify('a long enough password', stored)).toBe(true);
  });

  it('refuses a cost outside 14..20', () => {
    for (const cost of [13, 21, 16.5, Number.NaN]) expect(() => passwordHasher(cost), String(cost)).toThrow(RangeError);
  });
});
