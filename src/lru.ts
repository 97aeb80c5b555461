/**
 * A bounded map that forgets what has not been used for longest when full, in two generations of
 * half the capacity each: entries are added to the young one; when it is full, the old one is
 * dropped and the young one becomes old. A hit in the young generation is one lookup (caches sit
 * on every request's path: moving each hit to the end of one Map cost a delete and an insert), and a
 * hit in the old one moves the entry back to the young one. So an entry used within the last
 * half-capacity of insertions is always kept, and at most `capacity` entries are (two when it is one).
 */
export class Lru<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #generation: number;

  constructor(readonly capacity: number) {
    this.#generation = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old === undefined) return undefined;
    this.#old.delete(key);
    this.#add(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.#young.has(key)) {
      this.#young.set(key, value);
      return;
    }
    this.#old.delete(key);
    this.#add(key, value);
  }

  /** Whether the key is kept (a value of undefined included); does not count as a use. */
  has(key: K): boolean {
    return this.#young.has(key) || this.#old.has(key);
  }

  delete(key: K): void {
    this.#young.delete(key);
    this.#old.delete(key);
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #add(key: K, value: V): void {
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
