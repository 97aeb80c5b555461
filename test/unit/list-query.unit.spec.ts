import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { AppError, type FieldIssue } from '../../src/errors.js';
import {
  applyFilters,
  applyPage,
  contentRange,
  parseListQuery,
  type ListInput,
  type ListLimits,
  type ListQuery,
} from '../../src/read/list-query.js';
import { provenTotal } from '../../src/read/list-query/page.js';
import { declaredListSpec } from '../../src/read/list-specs/common.js';
import { templateEntity } from '../../src/model/template.js';

const spec = declaredListSpec(templateEntity);
import type { Database } from '../../src/storage/schema.js';

// Compiles PostgreSQL without a connection, to look at the SQL and its parameters.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const ID = '0b6f1f3c-8f0e-4d1a-9a57-2f1d6c1e7a10';
const OTHER = '6a1c2b7e-3d4f-4e5a-8b9c-0d1e2f3a4b5c';
const FIELDS =
  'id, name, template, abstract, cloudResourceTypes, documentationUrl, ownerId, description, labels, status, creatorId, createdAt, ' +
  'updatedAt, revision, parentId, executorId, q';
const INTEGER = 'an integer between -2147483648 and 2147483647';
const ISO = 'an ISO-8601 date-time such as 2024-05-01T12:00:00Z';
const TEXT_ARRAY_HINT = 'give an element it must contain, or an array of elements it must all contain';
const SORTABLE = 'id, name, template, abstract, documentationUrl, ownerId, description, status, creatorId, createdAt, updatedAt, revision';

const EXECUTORS = { table: 'template_executors', ownerColumn: 'template_id', targetColumn: 'executor_id' };
const PARENTS = { table: 'template_parents', ownerColumn: 'template_id', targetColumn: 'parent_id' };

const conditionsOf = (filter: unknown): ListQuery['conditions'] => parseListQuery(spec, { filter }).conditions;

/** The issues of the VALIDATION error the input must cause. */
function refusal(input: ListInput, limits?: ListLimits): readonly FieldIssue[] {
  try {
    parseListQuery(spec, input, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION' });
    return (error as AppError).errors;
  }
  throw new Error('expected the list query to be refused');
}

const compile = (query: ListQuery) =>
  applyPage(applyFilters(db.selectFrom('templates').select(['id', 'name']), spec, query), spec, query).compile();

describe('when a list request has no parameters', () => {
  it('matches everything, newest first, in a page of 100', () => {
    expect(parseListQuery(spec, {})).toEqual({
      conditions: [],
      sort: { field: 'createdAt', column: 'created_at', direction: 'DESC' },
      offset: 0,
      limit: 100,
    });
  });

  it('treats null parameters as absent', () => {
    expect(parseListQuery(spec, { filter: null, sort: null, range: null })).toEqual(parseListQuery(spec, {}));
  });

  it('never makes the default page larger than the maximum', () => {
    expect(parseListQuery(spec, {}, { maxPageSize: 20 }).limit).toBe(20);
  });
});

describe('when a filter uses each operator', () => {
  it.each<[string, Record<string, unknown>, ListQuery['conditions'][number]]>([
    ['equality', { name: 'web' }, { kind: 'compare', column: 'name', operator: '=', value: 'web' }],
    ['one of (array)', { status: ['enabled', 'disabled'] }, { kind: 'oneOf', column: 'status', values: ['enabled', 'disabled'] }],
    ['is null', { creatorId: null }, { kind: 'isNull', column: 'creator_id', negated: false }],
    ['__ne', { abstract__ne: true }, { kind: 'compare', column: 'abstract', operator: 'is distinct from', value: true }],
    ['__ne null', { creatorId__ne: null }, { kind: 'isNull', column: 'creator_id', negated: true }],
    ['__in', { id__in: [ID, OTHER] }, { kind: 'oneOf', column: 'id', values: [ID, OTHER] }],
    ['__like', { description__like: 'Db' }, { kind: 'contains', columns: ['description'], text: 'Db' }],
    ['__gt', { revision__gt: 2 }, { kind: 'compare', column: 'revision', operator: '>', value: 2 }],
    ['__gte', { revision__gte: 2 }, { kind: 'compare', column: 'revision', operator: '>=', value: 2 }],
    [
      '__lt',
      { updatedAt__lt: '2024-05-01T12:00:00Z' },
      { kind: 'compare', column: 'updated_at', operator: '<', value: '2024-05-01T12:00:00Z' },
    ],
    [
      '__lte',
      { createdAt__lte: '2024-05-01T12:00:00+02:00' },
      { kind: 'compare', column: 'created_at', operator: '<=', value: '2024-05-01T12:00:00+02:00' },
    ],
    ['q', { q: 'net' }, { kind: 'contains', columns: ['name', 'template', 'description'], text: 'net' }],
    ['a text[] element', { labels: 'prod' }, { kind: 'hasAll', column: 'labels', values: ['prod'] }],
    ['text[] elements', { labels: ['prod', 'eu'] }, { kind: 'hasAll', column: 'labels', values: ['prod', 'eu'] }],
    ['a link id', { executorId: ID }, { kind: 'linked', link: EXECUTORS, ids: [ID] }],
    ['link ids', { parentId: [ID, OTHER] }, { kind: 'linked', link: PARENTS, ids: [ID, OTHER] }],
  ])('parses %s', (_, filter, condition) => {
    expect(conditionsOf(filter)).toEqual([condition]);
  });

  it('parses a JSON-encoded filter exactly like the parsed object', () => {
    const filter = { name__like: 'a', labels: ['x'], revision__lt: 3 };
    expect(conditionsOf(JSON.stringify(filter))).toEqual(conditionsOf(filter));
  });

  it('maps snake_case keys to their camelCase fields', () => {
    expect(conditionsOf({ created_at__gt: '2024-01-01', cloud_resource_types: 'vm', creator_id: ID })).toEqual([
      { kind: 'compare', column: 'created_at', operator: '>', value: '2024-01-01T00:00:00Z' },
      { kind: 'hasAll', column: 'cloud_resource_types', values: ['vm'] },
      { kind: 'compare', column: 'creator_id', operator: '=', value: ID },
    ]);
  });

  it('reads a datetime without an offset as UTC and keeps its precision', () => {
    expect(conditionsOf({ createdAt: '2024-02-29T10:20:30.123456' })).toEqual([
      { kind: 'compare', column: 'created_at', operator: '=', value: '2024-02-29T10:20:30.123456Z' },
    ]);
  });

  it('accepts a Date from a GraphQL scalar', () => {
    expect(conditionsOf({ createdAt__gte: new Date('2024-03-01T00:00:00Z') })).toEqual([
      { kind: 'compare', column: 'created_at', operator: '>=', value: '2024-03-01T00:00:00.000Z' },
    ]);
  });
});

describe('when a filter is refused', () => {
  // Each case is one `key: value` entry, so the issue is always reported under `filter.<key>`.
  it.each<[string, string, unknown, string]>([
    ['an unknown field', 'nmae', 'x', `unknown filter field "nmae"; filterable fields: ${FIELDS}`],
    ['an unknown field with an operator', 'nmae__like', 'x', `unknown filter field "nmae"; filterable fields: ${FIELDS}`],
    ['a prototype key', '__proto__', 1, `unknown filter field "__proto__"; filterable fields: ${FIELDS}`],
    ['a json field', 'configuration', {}, `field "configuration" cannot be filtered; filterable fields: ${FIELDS}`],
    [
      'an unknown operator',
      'name__has',
      'x',
      'unknown operator "__has" on "name"; operators: __like, __ne, __in, __gt, __gte, __lt, __lte',
    ],
    ['__gt on a text field', 'name__gt', 'a', '"__gt" applies only to datetime and number fields; "name" is text'],
    ['__lte on a uuid field', 'id__lte', ID, '"__lte" applies only to datetime and number fields; "id" is uuid'],
    ['__like on an enum field', 'status__like', 'en', '"__like" applies only to text fields; "status" is enum'],
    ['__in with a scalar', 'status__in', 'enabled', '"__in" requires an array of values, got "enabled"'],
    ['__ne with an array', 'name__ne', ['a'], '"__ne" takes a single value, not an array'],
    ['__gt with an array', 'revision__gt', [1], '"__gt" takes a single value, not an array'],
    ['an operator on text[]', 'labels__ne', 'x', `"__ne" does not apply to text[] field "labels"; ${TEXT_ARRAY_HINT}`],
    ['an operator on a link', 'executorId__in', [ID], '"executorId" takes an id or an array of ids, without operators'],
    ['an operator on q', 'q__like', 'x', '"q" takes no operators; it already searches name, template, description'],
    ['a non-UUID id', 'id', 'nope', 'expected a UUID, got "nope"'],
    ['a non-UUID in a list', 'creatorId', [ID, 'nope'], 'expected a UUID at index 1, got "nope"'],
    ['a non-UUID link id', 'executorId', 7, 'expected a UUID or an array of UUIDs, got 7'],
    ['a non-UUID among link ids', 'parentId', [ID, 'x'], 'expected a UUID at index 1, got "x"'],
    ['a bad enum value', 'status', 'on', 'expected one of enabled, disabled, got "on"'],
    ['a string for a boolean', 'abstract', 'true', 'expected a JSON boolean (true or false), got "true"'],
    ['a string for a number', 'revision', '3', `expected ${INTEGER}, got "3"`],
    ['a fraction for an integer', 'revision__gt', 1.5, `expected ${INTEGER}, got 1.5`],
    ['a number for a text field', 'name', 5, 'expected a string, got 5'],
    ['an object for a text field', 'name', { a: 1 }, 'expected a string, got {"a":1}'],
    ['a NUL character', 'name', 'a\u0000b', 'expected a string, got "a\\u0000b"'],
    ['a non-string text[] element', 'labels', ['a', 2], 'expected a string at index 1, got 2'],
    ['a non-ISO date', 'createdAt__gt', '05/01/2024', `expected ${ISO}, got "05/01/2024"`],
    ['an impossible date', 'createdAt', '2023-02-29', `expected ${ISO}, got "2023-02-29"`],
    ['an impossible time', 'updatedAt', '2024-01-01T24:00:00Z', `expected ${ISO}, got "2024-01-01T24:00:00Z"`],
    ['a number for a datetime', 'createdAt', 1714560000000, `expected ${ISO}, got 1714560000000`],
    ['a non-string q', 'q', 1, 'expected a string, got 1'],
  ])('refuses %s', (_, key, value, message) => {
    // A computed key is always an own property, even `__proto__`, as in parsed JSON.
    expect(refusal({ filter: { [key]: value } })).toEqual([{ field: `filter.${key}`, message }]);
  });

  it.each<[string, unknown, string]>([
    ['malformed JSON', '{"name":', 'filter is not valid JSON'],
    ['an array', '["name"]', 'filter must be a JSON object of field: value pairs'],
    ['a scalar', 3, 'filter must be a JSON object of field: value pairs'],
  ])('refuses %s as a whole', (_, filter, message) => {
    expect(refusal({ filter })).toEqual([{ field: 'filter', message }]);
  });

  it('names every problem at once', () => {
    expect(refusal({ filter: { nmae: 1, id: 'x' }, sort: ['nope', 'ASC'], range: [-1, 5] }).map((issue) => issue.field)).toEqual([
      'filter.nmae',
      'filter.id',
      'sort',
      'range',
    ]);
  });
});

describe('when a sort is given', () => {
  it('accepts either case of the direction and snake_case names', () => {
    expect(parseListQuery(spec, { sort: '["updated_at","asc"]' }).sort).toEqual({
      field: 'updatedAt',
      column: 'updated_at',
      direction: 'ASC',
    });
    expect(parseListQuery(spec, { sort: ['name', 'Desc'] }).sort).toEqual({ field: 'name', column: 'name', direction: 'DESC' });
  });

  it.each<[string, unknown, string]>([
    ['an unknown field', ['nmae', 'ASC'], `unknown sort field "nmae"; sortable fields: ${SORTABLE}`],
    ['an unsortable field', ['labels', 'ASC'], `field "labels" cannot be sorted; sortable fields: ${SORTABLE}`],
    ['a json field', ['configuration', 'ASC'], `field "configuration" cannot be sorted; sortable fields: ${SORTABLE}`],
    ['a bad direction', ['name', 'up'], 'sort direction must be ASC or DESC, got "up"'],
    ['one element', ['name'], 'sort must be [field, direction], e.g. ["createdAt", "DESC"]'],
    ['three elements', ['name', 'ASC', 'id'], 'sort must be [field, direction], e.g. ["createdAt", "DESC"]'],
    ['a non-string field', [1, 'ASC'], 'sort must be [field, direction], e.g. ["createdAt", "DESC"]'],
    ['an object', { name: 'ASC' }, 'sort must be [field, direction], e.g. ["createdAt", "DESC"]'],
    ['malformed JSON', '["name",', 'sort is not valid JSON'],
  ])('refuses %s', (_, sort, message) => {
    expect(refusal({ sort })).toEqual([{ field: 'sort', message }]);
  });
});

describe('when a range is given', () => {
  it('takes [offset, limit], including a limit of 0 and the maximum itself', () => {
    expect(parseListQuery(spec, { range: '[20, 10]' })).toMatchObject({ offset: 20, limit: 10 });
    expect(parseListQuery(spec, { range: [5, 0] })).toMatchObject({ offset: 5, limit: 0 });
    expect(parseListQuery(spec, { range: [0, 1000] })).toMatchObject({ offset: 0, limit: 1000 });
  });

  it.each<[string, unknown, string]>([
    ['a negative offset', [-1, 10], 'range offset and limit must not be negative'],
    ['a negative limit', [0, -10], 'range offset and limit must not be negative'],
    ['a limit over the maximum', [0, 1001], 'range limit 1001 exceeds the maximum page size of 1000'],
    ['a fraction', [0, 2.5], 'range must be [offset, limit] with two integers, e.g. [0, 100]'],
    ['strings', ['0', '10'], 'range must be [offset, limit] with two integers, e.g. [0, 100]'],
    ['one element', [0], 'range must be [offset, limit] with two integers, e.g. [0, 100]'],
    ['three elements', [0, 10, 20], 'range must be [offset, limit] with two integers, e.g. [0, 100]'],
    ['malformed JSON', '0,10', 'range is not valid JSON'],
  ])('refuses %s', (_, range, message) => {
    expect(refusal({ range })).toEqual([{ field: 'range', message }]);
  });

  it('names the configured maximum', () => {
    expect(refusal({ range: [0, 51] }, { maxPageSize: 50 })).toEqual([
      { field: 'range', message: 'range limit 51 exceeds the maximum page size of 50' },
    ]);
  });
});

describe('when a query is compiled to SQL', () => {
  it('binds every client value as a parameter', () => {
    const sneaky = "x'; drop table templates; --";
    const { sql, parameters } = compile(parseListQuery(spec, { filter: { name: sneaky, labels: [sneaky], q: sneaky, executorId: ID } }));
    expect(sql).not.toContain('drop table');
    // Only the page bounds are written into the text: whole numbers validated by parseListQuery.
    expect(parameters).toEqual([sneaky, sneaky, `%${sneaky}%`, `%${sneaky}%`, `%${sneaky}%`, ID]);
    expect(sql).toMatch(/ limit 100 offset 0$/);
  });

  it('hides tombstones, adds only conditions and orders by the sort column then id', () => {
    const { sql, parameters } = compile(parseListQuery(spec, { filter: { revision__gte: 2 }, sort: ['name', 'ASC'], range: [40, 20] }));
    expect(sql).toBe(
      'select "id", "name" from "templates" where "templates"."deleted_at" is null and "templates"."revision" >= $1 ' +
        'order by "templates"."name" asc, "templates"."id" asc limit 20 offset 40',
    );
    expect(parameters).toEqual([2]);
  });

  it('does not repeat id when sorting by id', () => {
    expect(compile(parseListQuery(spec, { sort: ['id', 'DESC'] })).sql).toContain('order by "templates"."id" desc limit');
  });

  it('escapes LIKE wildcards and the escape character', () => {
    expect(compile(parseListQuery(spec, { filter: { name__like: '50%_a\\b' } })).parameters[0]).toBe('%50\\%\\_a\\\\b%');
  });

  it('checks text[] containment and links with EXISTS', () => {
    const { sql } = compile(parseListQuery(spec, { filter: { labels: ['a', 'b'], parentId: [ID, OTHER] } }));
    expect(sql).toContain('"templates"."labels" @> ARRAY[$1, $2]::text[]');
    expect(sql).toContain(
      'exists (select 1 as "one" from "template_parents" where "template_parents"."template_id" = "templates"."id" and ' +
        '"template_parents"."parent_id" in ($3, $4))',
    );
  });

  it('matches nothing for an empty "one of" instead of emitting IN ()', () => {
    expect(compile(parseListQuery(spec, { filter: { id__in: [], executorId: [] } })).sql).toContain('is null and false and false order by');
  });
});

describe('when the Content-Range header is built', () => {
  const query = parseListQuery(spec, { range: [20, 10] });

  it('names the resource, the rows on the page and the total', () => {
    expect(contentRange(spec, query, 10, 319)).toBe('templates 20-29/319');
    expect(contentRange(spec, query, 3, 23)).toBe('templates 20-22/23');
  });

  it('uses * for an empty page', () => {
    expect(contentRange(spec, query, 0, 5)).toBe('templates */5');
  });
});

describe('when the page statement may prove the total', () => {
  const at = (offset: number, limit: number): ListQuery => ({ ...parseListQuery(spec, {}), offset, limit });

  it.each<[string, ListQuery, number, number | undefined, number | undefined]>([
    ['takes the count of fewer matches than the cap', at(0, 25), 25, 100, 100],
    ['takes it on a later page too', at(50, 25), 25, 100, 100],
    ['leaves a full cap to a count', at(0, 25), 25, 1000, undefined],
    ['knows an empty first page means nothing matches', at(0, 25), 0, undefined, 0],
    ['leaves a page past the end to a count', at(100, 25), 0, undefined, undefined],
    ['leaves an empty range to a count', at(0, 0), 0, undefined, undefined],
  ])('%s', (_, query, rowCount, counted, expected) => {
    expect(provenTotal(query, rowCount, counted, 1000)).toBe(expected);
  });
});
