import { describe, expect, it } from 'vitest';
import { addressRetryAfterMs, failureDelayMs, slidingCount } from '../../src/auth/rate-limit.js';

const WINDOW = 60_000;

describe('the sliding window of attempts per address', () => {
  it("weighs the previous window's count by how much of it lies within the last minute", () => {
    expect(slidingCount(30, 0, 0)).toBe(30);
    expect(slidingCount(30, 0, 30_000)).toBe(15);
    expect(slidingCount(30, 5, 45_000)).toBe(12.5);
    expect(slidingCount(30, 5, WINDOW)).toBe(5);
  });

  it('says how long until one more attempt fits, later in this window as the previous one fades', () => {
    // 30 just before the boundary, one refused just after: 3 s later 28 + 1 + 1 = 30 fits.
    const wait = addressRetryAfterMs(30, 1, 1000, 30);
    expect(wait).toBe(3000);
    expect(slidingCount(30, 1, 1000 + wait) + 1).toBeLessThanOrEqual(30);
    expect(slidingCount(30, 1, 1000 + wait - 1) + 1).toBeGreaterThan(30);
  });

  it('or in the next window, when this one alone is over the limit', () => {
    const wait = addressRetryAfterMs(0, 31, 10_000, 30);
    const intoNext = 10_000 + wait - WINDOW;
    expect(intoNext).toBeGreaterThan(0);
    expect(slidingCount(31, 0, intoNext) + 1).toBeLessThanOrEqual(30);
    expect(slidingCount(31, 0, intoNext - 1) + 1).toBeGreaterThan(30);
  });
});

describe('the back-off of an identifier after failures', () => {
  it('lets the free failures through, then waits 1 s doubling up to the cap', () => {
    expect([0, 4, 5, 6, 7, 10].map((attempts) => failureDelayMs(attempts, 5, 900_000))).toEqual([0, 0, 1000, 2000, 4000, 32_000]);
    expect(failureDelayMs(20, 5, 900_000)).toBe(900_000);
    expect(failureDelayMs(10_000, 5, 900_000)).toBe(900_000);
  });
});
