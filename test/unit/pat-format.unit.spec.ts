import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generatePersonalAccessToken, PAT_PATTERN, PAT_PREFIX, parsePersonalAccessToken } from '../../src/auth/pat-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('a personal access token', () => {
  it('is ilpat_ followed by 33 base62 characters of randomness and a 6-character checksum', () => {
    const { token } = generatePersonalAccessToken();
    expect(token).toMatch(/^ilpat_[0-9A-Za-z]{39}$/);
    expect(token).toMatch(PAT_PATTERN);
    expect(token.startsWith(PAT_PREFIX)).toBe(true);
  });

  it('is stored as the SHA-256 hex of the whole token', () => {
    const { token, hash } = generatePersonalAccessToken();
    expect(hash).toBe(sha256(token));
  });

  it('differs every time it is generated', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generatePersonalAccessToken().token));
    expect(tokens.size).toBe(1000);
  });

  it('parses back to the hash it was generated with', () => {
    for (let i = 0; i < 200; i++) {
      const { token, hash } = generatePersonalAccessToken();
      expect(parsePersonalAccessToken(token)).toEqual({ hash });
    }
  });
});

describe('when a presented token is parsed', () => {
  it('refuses every single-character change, in the random part and in the checksum, as a checksum error', () => {
    const { token } = generatePersonalAccessToken();
    for (let i = PAT_PREFIX.length; i < token.length; i++) {
      for (const replacement of BASE62) {
        if (replacement === token[i]) continue;
        const typo = token.slice(0, i) + replacement + token.slice(i + 1);
        expect(parsePersonalAccessToken(typo), `${i}: ${replacement}`).toEqual({ error: 'checksum' });
      }
    }
  });

  it('refuses two swapped neighbouring characters as a checksum error', () => {
    const { token } = generatePersonalAccessToken();
    for (let i = PAT_PREFIX.length; i < token.length - 1; i++) {
      if (token[i] === token[i + 1]) continue;
      const swapped = token.slice(0, i) + (token[i + 1] ?? '') + (token[i] ?? '') + token.slice(i + 2);
      expect(parsePersonalAccessToken(swapped)).toEqual({ error: 'checksum' });
    }
  });

  it.each([
    ['an empty string', ''],
    ['the prefix alone', 'ilpat_'],
    ['a token one character short', (t: string) => t.slice(0, -1)],
    ['a token one character long', (t: string) => `${t}0`],
    ['another prefix', (t: string) => t.replace('ilpat_', 'ghp_xx')],
    ['an upper-case prefix', (t: string) => t.replace('ilpat_', 'ILPAT_')],
    ['a character outside base62', (t: string) => `${t.slice(0, 10)}-${t.slice(11)}`],
    ['surrounding whitespace', (t: string) => ` ${t}`],
    ['a JWT', 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIxIn0.c2ln'],
  ])('refuses %s as malformed', (_label, make) => {
    const { token } = generatePersonalAccessToken();
    const text = typeof make === 'string' ? make : make(token);
    expect(parsePersonalAccessToken(text)).toEqual({ error: 'malformed' });
  });
});
