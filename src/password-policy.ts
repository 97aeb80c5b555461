import { createRequire } from 'node:module';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

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
 * The least zxcvbn score a new password needs: 3 is "safely unguessable" (about 10^8 guesses or
 * more), which refuses repeats (`aaaaaaaaaaaa`), sequences (`123456789012`), keyboard rows and
 * common words with digits or a symbol (`Password123!`, `welcome12345`).
 */
export const MIN_PASSWORD_SCORE = 3;

/**
 * Common passwords (ASVS 6.2.4): the list zxcvbn-ts ships (`@zxcvbn-ts/language-common`, about
 * 49,000 leaked passwords, most used first). Only those a password could equal are kept, lower-cased:
 * the comparison ignores case, so `Password1234` is as common as `password1234`.
 */
interface Checks {
  readonly common: ReadonlySet<string>;
  readonly strength: ZxcvbnFactory;
}
let checks: Checks | undefined;

/** Loaded on the first password checked, not at start-up: decompressing the dictionaries takes ~0.1 s. */
function loadChecks(): Checks {
  const require = createRequire(import.meta.url);
  const { dictionary, adjacencyGraphs } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  return {
    common: new Set(dictionary['passwords-common'].filter((word) => word.length >= MIN_PASSWORD_LENGTH).map((word) => word.toLowerCase())),
    strength: new Factory({ dictionary, graphs: adjacencyGraphs }),
  };
}

/** zxcvbn's warning keys in this service's words (the estimator ships no English texts without a language package). */
const WEAKNESSES: Readonly<Record<string, string>> = {
  simpleRepeat: 'repeats one character or a short group',
  extendedRepeat: 'repeats one character or a short group',
  sequences: 'is a sequence such as abcd or 1234',
  straightRow: 'is a row of keys on the keyboard',
  keyPattern: 'is a pattern on the keyboard',
  dates: 'is mostly a date',
  recentYears: 'is mostly a year',
  common: 'is a common password',
  similarToCommon: 'is a common password with a few changes (digits or symbols added, letters swapped)',
  topTen: 'is one of the most common passwords',
  topHundred: 'is one of the most common passwords',
  wordByItself: 'is a single word',
  namesByThemselves: 'is a name',
  commonNames: 'is a common name',
};

/** Made on the first password counted: the first Intl object loads ICU's data, about 15 ms of a CLI's start. */
let segmenter: Intl.Segmenter | undefined;

/** Characters as a person counts them (an emoji or an accented letter is one). */
const graphemes = (text: string): number => {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let count = 0;
  for (const _segment of segmenter.segment(text)) count += 1;
  return count;
};

/**
 * What is wrong with a new password, in words for the `password` field, or undefined when it may be
 * used: at least 12 characters (counted as the user sees them), at most 1024, not a common one, and
 * hard to guess by the strength estimator (zxcvbn-ts).
 */
export function passwordProblem(password: string): string | undefined {
  // A grapheme is at most a few dozen code units in practice; very long input is refused before counting.
  if (password.length > 64 * MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  const length = graphemes(password.normalize('NFKC'));
  if (length < MIN_PASSWORD_LENGTH) return `at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  checks ??= loadChecks();
  if (checks.common.has(password.normalize('NFKC').toLowerCase())) {
    return 'is one of the most common passwords (it appears in lists of leaked passwords); choose another, such as a few random words';
  }
  // The estimator's cost grows with length; past 256 characters a password is not guessable anyway.
  const estimated = checks.strength.check(password.slice(0, 256));
  if (estimated.score < MIN_PASSWORD_SCORE) {
    const why = WEAKNESSES[estimated.feedback.warning ?? ''] ?? 'is too easy to guess';
    return (
      `${why}: it could be guessed in about 10^${Math.floor(estimated.guessesLog10)} tries; choose another, such as a few random ` + `words`
    );
  }
  return undefined;
}
