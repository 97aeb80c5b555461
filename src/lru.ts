/**
 * A bounded map that forgets the least recently used entry when full (a Map keeps insertion order,
 * and a hit is moved to the end).
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  /** Whether the key is kept (a value of undefined included); does not count as a use. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
