import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every personal access token starts with this, so secret scanners and the authenticator can spot one. */
export const PAT_PREFIX = 'ilpat_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_BYTES = 24; // 192 bits (docs/contract.md §5 asks for at least 160)
/** ceil(192 / log2(62)): every 24-byte value fits, zero-padded so the length never varies. */
const RANDOM_CHARS = 33;
/** 62^6 > 2^32, so any CRC32 fits in six characters. */
const CHECKSUM_CHARS = 6;

/** The whole token: prefix, random part, checksum (45 characters). */
export const PAT_PATTERN = new RegExp(`^${PAT_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/** A parsed personal access token: the hash to look up, or why it is not one. */
export type ParsedPersonalAccessToken = { readonly hash: string } | { readonly error: 'malformed' | 'checksum' };

function base62(value: bigint, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = ALPHABET.charAt(Number(rest % 62n)) + out;
    rest /= 62n;
  }
  return out.padStart(width, '0');
}

/** The checksum is over the random part's text, so checking it needs no base62 decoding. */
const checksumOf = (randomPart: string): string => base62(BigInt(crc32(randomPart)), CHECKSUM_CHARS);

/**
 * The value stored and looked up. A plain SHA-256 is right here, unlike for passwords: the input is
 * 192 random bits, so there is nothing to brute-force and a slow KDF would only slow every request.
 */
const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A new token (shown to its owner once) and the hash that is stored in its place. */
export function generatePersonalAccessToken(): { token: string; hash: string } {
  const randomPart = base62(BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`), RANDOM_CHARS);
  const token = `${PAT_PREFIX}${randomPart}${checksumOf(randomPart)}`;
  return { token, hash: hashOf(token) };
}

/** Checks the shape and checksum of a presented token (no database read) and returns its hash. */
export function parsePersonalAccessToken(text: string): ParsedPersonalAccessToken {
  if (!PAT_PATTERN.test(text)) return { error: 'malformed' };
  const randomPart = text.slice(PAT_PREFIX.length, PAT_PREFIX.length + RANDOM_CHARS);
  if (text.slice(PAT_PREFIX.length + RANDOM_CHARS) !== checksumOf(randomPart)) return { error: 'checksum' };
  return { hash: hashOf(text) };
}
