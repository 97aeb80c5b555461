import { describe, expect, it } from 'vitest';
import { createStatementNamer, PLAN_EACH_CALL } from '../../src/storage/prepared.js';

const LOOKUP = 'select "id", "name" from "templates" where "id" = $1';

describe('which statements are prepared (src/db/prepared.ts)', () => {
  it('names a statement the second time it is seen, and keeps that name', () => {
    const namer = createStatementNamer();
    expect(namer.nameOf(LOOKUP)).toBeUndefined();
    const name = namer.nameOf(LOOKUP);
    expect(name).toMatch(/^il_\d+$/);
    expect(namer.nameOf(LOOKUP)).toBe(name);
    expect(namer.nameOf(`${LOOKUP} and "deleted_at" is null`)).toBeUndefined();
  });

  it('names selects, inserts, updates, deletes and WITH queries, with or without parameters', () => {
    const namer = createStatementNamer();
    for (const text of [
      'select count(*) from "resources" where "deleted_at" is null',
      'WITH x AS (SELECT 1) SELECT * FROM x WHERE $1::int = 1',
      'insert into "t" ("a") values ($1)',
      'update "t" set "a" = $1',
      'delete from "t" where "a" = $1',
    ]) {
      namer.nameOf(text);
      const named = namer.nameOf(text);
      // `SELECT * FROM x` is a star select and stays unnamed; the others get names.
      if (text.startsWith('WITH')) expect(named).toBeUndefined();
      else expect(named, text).toBeDefined();
    }
  });

  it('never names a * select or RETURNING *, a text holding several statements, or anything but DML', () => {
    const namer = createStatementNamer();
    for (const text of [
      'select * from "users" where "id" = $1',
      'select "t".* from "t" where "id" = $1',
      'insert into "t" ("a") values ($1) returning *',
      'select 1; select 2',
      'BEGIN',
      'LISTEN "x"',
      'CREATE TABLE t (a int)',
    ]) {
      namer.nameOf(text);
      expect(namer.nameOf(text), text).toBeUndefined();
    }
    expect(namer.size).toBe(0);
  });

  it('never names a text marked PLAN_EACH_CALL, however often it runs', () => {
    const namer = createStatementNamer();
    const marked = `select "stream_id" from "events" where "stream_id" = $1 ${PLAN_EACH_CALL}`;
    for (let i = 0; i < 5; i++) expect(namer.nameOf(marked)).toBeUndefined();
    expect(namer.size).toBe(0);
  });

  it('names at most maxNames distinct texts; later ones run unnamed', () => {
    const namer = createStatementNamer(2);
    const texts = [1, 2, 3].map((n) => `select "c${n}" from "t" where "id" = $1`);
    for (const text of texts) namer.nameOf(text);
    expect(texts.map((text) => namer.nameOf(text))).toEqual(['il_1', 'il_2', undefined]);
    expect(namer.size).toBe(2);
  });
});
