import { createRequire } from 'node:module';

/** The shortest password the service accepts (ASVS 6.2.1). */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest: scrypt takes any length, but a megabyte of password is no password. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * How expensive a password hash is: log2 of scrypt's N (memory 128·N·8 bytes). 17 (128 MiB, OWASP's
 * minimum today) by default; PASSWORD_HASH_COST takes 14 (16 MiB, the scrypt paper's interactive
 * setting: tests, hosts that cannot spare 128 MiB a sign-in) up to 20 (1 GiB).
 */
export const PASSWORD_HASH_COST = { default: 17, min: 14, max: 20 } as const;

/**
 * Common passwords (ASVS 6.2.4): the list zxcvbn-ts ships (`@zxcvbn-ts/language-common`, about
 * 49,000 leaked passwords, most used first). Only those a password could equal are kept, lower-cased:
 * the comparison ignores case, so `Password1234` is as common as `password1234`.
 */
let common: ReadonlySet<string> | undefined;
const commonPasswords = (): ReadonlySet<string> => (common ??= loadCommonPasswords());

/** Loaded on the first password checked, not at start-up: decompressing the dictionaries takes ~0.1 s. */
function loadCommonPasswords(): ReadonlySet<string> {
  const require = createRequire(import.meta.url);
  const { dictionary } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  return new Set(dictionary['passwords-common'].filter((word) => word.length >= MIN_PASSWORD_LENGTH).map((word) => word.toLowerCase()));
}

/** Characters as a person counts them (an emoji or an accented letter is one). */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemes = (text: string): number => {
  let count = 0;
  for (const _segment of segmenter.segment(text)) count += 1;
  return count;
};

/**
 * What is wrong with a new password, in words for the `password` field, or undefined when it may be
 * used: at least 12 characters (counted as the user sees them), at most 1024, and not a common one.
 */
export function passwordProblem(password: string): string | undefined {
  // A grapheme is at most a few dozen code units in practice; very long input is refused before counting.
  if (password.length > 64 * MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  const length = graphemes(password.normalize('NFKC'));
  if (length < MIN_PASSWORD_LENGTH) return `at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  if (commonPasswords().has(password.normalize('NFKC').toLowerCase())) {
    return 'is one of the most common passwords (it appears in lists of leaked passwords); choose another, such as a few random words';
  }
  return undefined;
}
