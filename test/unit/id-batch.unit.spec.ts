import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../../src/events/codec.js';
import { existingRowIds } from '../../src/projections/row-projection.js';
import { batchedLookup, ID_BATCH_SIZE, idGroups, sameTurnLoader } from '../../src/storage/id-batch.js';

describe('batched lookups by id', () => {
  it('given a lookup of $1, when batched, then it is ID_BATCH_SIZE copies joined by UNION ALL, the i-th taking $i', () => {
    const text = batchedLookup('select a from t where t.id = $1 and t.owner = $1');
    const branches = text.split(' UNION ALL ');
    expect(branches).toHaveLength(ID_BATCH_SIZE);
    branches.forEach((branch, i) =>
      expect(branch).toBe(`(select a from t where t.id = $${String(i + 1)} and t.owner = $${String(i + 1)})`),
    );
  });

  it('given a lookup with another parameter, when batched, then it is refused', () => {
    expect(() => batchedLookup('select a from t where t.id = $1 and t.kind = $2')).toThrow(TypeError);
  });

  it('given one id, when grouped, then it goes alone; given more, then in padded groups of ID_BATCH_SIZE', () => {
    expect(idGroups(['a'])).toEqual([['a']]);
    const ids = Array.from({ length: ID_BATCH_SIZE + 2 }, (_, i) => `id${String(i)}`);
    const groups = idGroups(ids);
    expect(groups).toHaveLength(2);
    expect(groups[0]).toEqual(ids.slice(0, ID_BATCH_SIZE));
    expect(groups[1]).toEqual([...ids.slice(ID_BATCH_SIZE), ...Array.from({ length: ID_BATCH_SIZE - 2 }, () => ids[ID_BATCH_SIZE])]);
  });
});

describe('a same-turn loader', () => {
  const recording = () => {
    const calls: { scope: object; keys: readonly string[] }[] = [];
    const load = sameTurnLoader<object, string>((scope, keys) => {
      calls.push({ scope, keys });
      return Promise.resolve(new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `value of ${k}`])));
    });
    return { calls, load };
  };

  it('given loads of one turn, when they run, then one call answers them all, each with its own value', async () => {
    const { calls, load } = recording();
    const scope = {};
    expect(await Promise.all([load(scope, 'a'), load(scope, 'b'), load(scope, 'a'), load(scope, 'missing')])).toEqual([
      'value of a',
      'value of b',
      'value of a',
      undefined,
    ]);
    expect(calls).toEqual([{ scope, keys: ['a', 'b', 'missing'] }]);
  });

  it('given loads of two scopes or two turns, when they run, then each scope and turn has its own call', async () => {
    const { calls, load } = recording();
    const one = {};
    const two = {};
    await Promise.all([load(one, 'a'), load(two, 'b')]);
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b']]);
    await load(one, 'c');
    expect(calls).toHaveLength(3);
  });

  it('given a failing call, when its loads await it, then every one of them is rejected and the next turn loads again', async () => {
    let fail = true;
    const load = sameTurnLoader<object, string>(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve(new Map([['a', 'up']]))));
    const scope = {};
    const results = await Promise.allSettled([load(scope, 'a'), load(scope, 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await load(scope, 'a')).toBe('up');
  });
});

describe('the rows a live batch loads', () => {
  const event = (id: string, revision: bigint): DecodedEvent =>
    ({ streamId: `template-${id}`, streamRevision: revision }) as unknown as DecodedEvent;
  const rowId = (e: DecodedEvent): string => e.streamId.slice('template-'.length);

  it('given rows whose first event in the batch begins their stream, when the batch is planned, then only the others are loaded', () => {
    expect(existingRowIds([event('new', 0n), event('new', 1n), event('old', 3n), event('old', 4n)], rowId)).toEqual(['old']);
  });

  it('given a batch that begins after a row was created, when planned, then the row is loaded', () => {
    expect(existingRowIds([event('a', 1n), event('b', 0n)], rowId)).toEqual(['a']);
  });
});
