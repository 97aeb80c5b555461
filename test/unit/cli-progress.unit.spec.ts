import { describe, expect, it } from 'vitest';
import { createProgress, duration, eta, progressBar, progressLine, wholeNumber } from '../../src/cli/progress.js';

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('a whole number', () => {
  it('is written as en-US writes it, rounded, without Intl', () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    const values = [
      0,
      -0,
      7,
      999,
      1000,
      1234.5,
      12_345.49,
      999_999.5,
      1_000_000,
      48_000_123,
      2 ** 53,
      -0.4,
      -1234.6,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const value of [...values, 0n, 999n, 1000n, 123_456_789_012_345_678_901n, -4567n])
      expect(wholeNumber(value), String(value)).toBe(intl.format(value));
  });
});

describe('a progress line', () => {
  it('says how far, the rate and the time left', () => {
    expect(progressLine({ label: 'rebuild audit_log', done: 12_000, total: 48_000, unit: 'events', rate: 4000, elapsedMs: 3000 })).toBe(
      'rebuild audit_log: 12,000/48,000 events (25%) · 4,000 events/s · ETA 9 s',
    );
  });

  it('says the time taken once done, and the elapsed time while the total is unknown', () => {
    expect(progressLine({ label: 'seed resources', done: 60, total: 60, unit: 'resources', rate: 20, elapsedMs: 3000 })).toBe(
      'seed resources: 60/60 resources (100%) · 20 resources/s · done in 3 s',
    );
    expect(progressLine({ label: 'replay', done: 500, total: undefined, unit: 'events', rate: 250, elapsedMs: 2000 })).toBe(
      'replay: 500 events · 250 events/s · elapsed 2 s',
    );
  });

  it('draws a bar in front of the words on a terminal', () => {
    expect(progressBar({ label: 'x', done: 1, total: 4, unit: 'events', rate: 1, elapsedMs: 1000 })).toBe(
      `[${'#'.repeat(6)}${'-'.repeat(18)}] x: 1/4 events (25%) · 1 events/s · ETA 3 s`,
    );
  });

  it('formats durations and estimates from the rate so far', () => {
    expect([duration(42_400), duration(185_000), duration(3_720_000)]).toEqual(['42 s', '3 min 05 s', '1 h 02 min']);
    expect(eta({ done: 10, total: 110, rate: 50 })).toBe(2000);
    expect(eta({ done: 10, total: undefined, rate: 50 })).toBeUndefined();
    expect(eta({ done: 0, total: 10, rate: 0 })).toBeUndefined();
  });
});

describe('a progress reporter', () => {
  it('writes a line at most every interval off a terminal, and always a last one', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const progress = createProgress(
      'rebuild templates',
      'events',
      { write: (t) => lines.push(t), tty: false, intervalMs: 3000, now: clock.now },
      100,
    );
    clock.advance(1000);
    progress.update(10);
    expect(lines).toEqual([]);
    clock.advance(2000);
    progress.update(30);
    clock.advance(1000);
    progress.update(40);
    clock.advance(1000);
    progress.finish(100);
    expect(lines).toEqual([
      'rebuild templates: 30/100 events (30%) · 10 events/s · ETA 7 s\n',
      'rebuild templates: 100/100 events (100%) · 20 events/s · done in 5 s\n',
    ]);
  });

  it('redraws one bar in place on a terminal and ends it with a newline', () => {
    const clock = manualClock();
    const writes: string[] = [];
    const progress = createProgress('seed', 'resources', { write: (t) => writes.push(t), tty: true, now: clock.now }, 10);
    clock.advance(500);
    progress.update(5);
    clock.advance(500);
    progress.finish(10);
    expect(writes).toHaveLength(2);
    expect(writes.every((w) => w.startsWith('\r\u001b[2K['))).toBe(true);
    expect(writes[1]?.endsWith('done in 1 s\n')).toBe(true);
  });

  it('takes a total learnt on the way, and ends at the count reached when it was an overestimate', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const progress = createProgress('rebuild', 'events', { write: (t) => lines.push(t), tty: false, intervalMs: 1000, now: clock.now });
    clock.advance(1000);
    progress.update(50, 200);
    clock.advance(1000);
    progress.finish(180);
    expect(lines).toEqual([
      'rebuild: 50/200 events (25%) · 50 events/s · ETA 3 s\n',
      'rebuild: 180/180 events (100%) · 90 events/s · done in 2 s\n',
    ]);
  });
});
