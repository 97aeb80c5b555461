import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/lru.js';

describe('Lru (src/lru.ts)', () => {
  it('forgets the least recently used entry when full; a read counts as a use', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('keeps an entry used within the last half-capacity of insertions, and never more than its capacity', () => {
    const lru = new Lru<number, number>(100);
    lru.set(-1, -1);
    for (let i = 0; i < 10_000; i++) {
      lru.set(i, i);
      if (i % 40 === 0) expect(lru.get(-1)).toBe(-1);
      expect(lru.size).toBeLessThanOrEqual(100);
    }
    expect(lru.get(9_999)).toBe(9_999);
    expect(lru.get(9_000)).toBeUndefined();
  });

  it('replaces a key without growing, and deletes', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    expect(lru.size).toBe(1);
    expect(lru.get('a')).toBe(2);
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
  });
});
