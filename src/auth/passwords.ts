import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { PASSWORD_HASH_COST } from '../password-policy.js';

/** scrypt's parameters: the cost N, the block size r and the parallelism p. */
interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

// scrypt is memory-hard: N=2^17, r=8 needs 128 MiB per hash (OWASP's minimum today, 2^17/8/1),
// which is what makes offline guessing of a stolen hash expensive. About 0.3 s per hash on the CI
// machine; Node runs at most four at once (its thread pool), so sign-in bursts stay within 512 MiB.
const KEY_LENGTH = 32;
/** Hashes stored with a cost above this are not ours: refused rather than allowed to take the memory. */
const MAX_N = 2 ** PASSWORD_HASH_COST.max;

/** scrypt needs 128·N·r bytes; Node refuses to start one above `maxmem`. */
const memoryFor = ({ N, r }: ScryptParams): number => 128 * N * r + 1024 * 1024;

const derive = (password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const options: ScryptOptions = { ...params, maxmem: memoryFor(params) };
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

interface StoredHash extends ScryptParams {
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseStored(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every(Number.isSafeInteger) || params.N > MAX_N || params.r > 32 || params.p > 16) return undefined;
  return { ...params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

/** Hashes and checks passwords at one cost; the service makes one from PASSWORD_HASH_COST. */
export interface PasswordHasher {
  /** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
  hash(password: string): Promise<string>;
  /**
   * Checks a password in constant time. With no stored hash (unknown user) it still does the full
   * work against a decoy, so response times do not reveal which identifiers exist.
   */
  verify(password: string, stored: string | null): Promise<boolean>;
  /**
   * Whether a stored hash was made with weaker parameters than this hasher's: the next successful
   * sign-in, which has the password in hand, stores a new hash (the transparent rehash, src/auth/sign-in.ts).
   */
  needsRehash(stored: string): boolean;
}

/** A hasher whose new hashes use N = 2^cost, r=8, p=1. */
export function passwordHasher(cost: number = PASSWORD_HASH_COST.default): PasswordHasher {
  if (!Number.isInteger(cost) || cost < PASSWORD_HASH_COST.min || cost > PASSWORD_HASH_COST.max) {
    throw new RangeError(`password hash cost must be a whole number from ${PASSWORD_HASH_COST.min} to ${PASSWORD_HASH_COST.max}`);
  }
  const params: ScryptParams = { N: 2 ** cost, r: 8, p: 1 };
  const hash = async (password: string): Promise<string> => {
    const salt = randomBytes(16);
    const key = await derive(password, salt, params);
    return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
  };
  /** A hash of a random password: verifying against it costs the same as against a real one. */
  let decoy: Promise<string> | undefined;
  return {
    hash,
    async verify(password, stored) {
      decoy ??= hash(randomBytes(24).toString('base64'));
      const parsed = parseStored(stored ?? (await decoy));
      if (!parsed) return false;
      const actual = await derive(password, parsed.salt, parsed);
      return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash) && stored !== null;
    },
    needsRehash(stored) {
      const parsed = parseStored(stored);
      return parsed !== undefined && (parsed.N < params.N || parsed.r < params.r || parsed.p < params.p);
    },
  };
}
