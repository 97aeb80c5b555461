import { AppError } from '../errors.js';

interface Window {
  count: number;
  resetAt: number;
}

interface Failures {
  count: number;
  lastAt: number;
}

/** The sign-in limiter's windows and bounds. */
export interface SignInLimiterOptions {
  /** Attempts per client address per minute. */
  readonly perAddressPerMinute?: number;
  /** Failures for one identifier before each further attempt must wait. */
  readonly freeFailures?: number;
  /** The longest wait a run of failures can impose, in seconds. */
  readonly maxDelaySeconds?: number;
}

const tooMany = (retryAfterSeconds: number, why: string): AppError =>
  new AppError('RATE_LIMITED', `too many sign-in attempts ${why}; retry in ${retryAfterSeconds} s`, { details: { retryAfter: retryAfterSeconds } });

/**
 * Guards sign-in and token endpoints: a fixed window per client address, and per identifier a delay
 * that doubles with each failure after the free ones (capped, and forgotten after a success or once
 * the cap has passed), so guessing slows down without locking a real user out forever.
 * In-process: each replica counts on its own (a shared store is a later step).
 */
export class SignInLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly failures = new Map<string, Failures>();
  private readonly perAddress: number;
  private readonly free: number;
  private readonly maxDelayMs: number;

  constructor(options: SignInLimiterOptions = {}) {
    this.perAddress = options.perAddressPerMinute ?? 30;
    this.free = options.freeFailures ?? 5;
    this.maxDelayMs = (options.maxDelaySeconds ?? 900) * 1000;
  }

  /** Throws RATE_LIMITED (429 with Retry-After) when this attempt must wait. */
  check(address: string, identifier: string, now: number): void {
    const window = this.windows.get(address);
    if (!window || window.resetAt <= now) this.windows.set(address, { count: 1, resetAt: now + 60_000 });
    else if (++window.count > this.perAddress) throw tooMany(Math.ceil((window.resetAt - now) / 1000), 'from this address');
    const failed = this.failures.get(identifier.toLowerCase());
    if (!failed || failed.count < this.free) return;
    const wait = Math.min(this.maxDelayMs, 1000 * 2 ** (failed.count - this.free));
    const readyAt = failed.lastAt + wait;
    if (readyAt > now) throw tooMany(Math.ceil((readyAt - now) / 1000), 'for this identifier');
  }

  failed(identifier: string, now: number): void {
    const key = identifier.toLowerCase();
    const previous = this.failures.get(key);
    // A run of failures older than the longest delay is forgotten.
    const fresh = !previous || now - previous.lastAt > this.maxDelayMs;
    this.failures.set(key, { count: fresh ? 1 : previous.count + 1, lastAt: now });
    if (this.failures.size > 100_000) this.failures.clear(); // bounded memory under a spray of identifiers
  }

  succeeded(identifier: string): void {
    this.failures.delete(identifier.toLowerCase());
  }
}
