import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateView } from '../../src/read/templates.js';
import type { ErrorCode, FieldIssue } from '../../src/errors.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

type Body = Record<string, unknown>;

interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldIssue[];
  readonly [extension: string]: unknown;
}

interface ExpectedProblem {
  readonly code: ErrorCode;
  /** Exact text, or a pattern where the text embeds a third-party message. */
  readonly detail?: string | RegExp;
  /** Exactly these `errors` entries, in any order. */
  readonly errors?: readonly FieldIssue[];
  /** Exactly these fields in `errors`, in any order (when the messages are not the point). */
  readonly fields?: readonly string[];
}

const STATUS_OF: Partial<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  UNPROCESSABLE: 422,
  NOT_UNIQUE: 409,
  STILL_REFERENCED: 409,
  LAST_SUPER_ACCESS: 409,
  INVALID_REFERENCE: 422,
};

/** Asserts an RFC 9457 problem response and returns its body for further checks. */
function expectProblem(response: LightMyRequestResponse, status: number, expected: ExpectedProblem): ProblemBody {
  expect(response.statusCode, response.body).toBe(status);
  expect(STATUS_OF[expected.code]).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const problem = response.json<ProblemBody>();
  expect(problem).toMatchObject({ status, code: expected.code });
  expect(typeof problem.type).toBe('string');
  expect(problem.type).not.toBe('');
  expect(typeof problem.title).toBe('string');
  expect(problem.title).not.toBe('');
  expect(typeof problem.detail).toBe('string');
  if (typeof expected.detail === 'string') expect(problem.detail).toBe(expected.detail);
  if (expected.detail instanceof RegExp) expect(problem.detail).toMatch(expected.detail);
  const byField = (a: FieldIssue, b: FieldIssue): number => a.field.localeCompare(b.field);
  if (expected.errors) expect([...(problem.errors ?? [])].sort(byField)).toEqual([...expected.errors].sort(byField));
  if (expected.fields) expect((problem.errors ?? []).map((e) => e.field).sort()).toEqual([...expected.fields].sort());
  return problem;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Names and slugs are unique per database; a counter keeps every test's data apart.
let counter = 0;
const uniqueName = (prefix: string): string => `${prefix} ${++counter}`;
const uniqueSlug = (prefix: string): string => `${prefix}_${++counter}`;

for (const target of databaseTargets()) {
  describe(`templates over HTTP on ${target.name}`, () => {
    let h: HttpHarness;

    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => h.close());

    const inject = (options: InjectOptions): Promise<LightMyRequestResponse> => h.inject(options);
    const post = (payload: Body, headers: Record<string, string> = {}) =>
      inject({ method: 'POST', url: '/api/templates', payload, headers });
    const get = (id: string, headers: Record<string, string> = {}) => inject({ method: 'GET', url: `/api/templates/${id}`, headers });
    const patch = (id: string, payload: Body, headers: Record<string, string> = {}) =>
      inject({ method: 'PATCH', url: `/api/templates/${id}`, payload, headers });
    const action = (id: string, name: string, headers: Record<string, string> = {}) =>
      inject({ method: 'POST', url: `/api/templates/${id}/actions/${name}`, headers });
    const remove = (id: string, headers: Record<string, string> = {}) => inject({ method: 'DELETE', url: `/api/templates/${id}`, headers });
    const list = (query: { filter?: unknown; sort?: unknown; range?: unknown }, headers: Record<string, string> = {}) =>
      inject({
        method: 'GET',
        url: '/api/templates',
        headers,
        query: Object.fromEntries(
          Object.entries(query).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
        ),
      });

    /** A valid create body with fresh name and slug. */
    const fresh = (overrides: Body = {}): Body => ({ name: uniqueName('Template'), template: uniqueSlug('tpl'), ...overrides });

    /** Creates a template and returns it as the API answered (asserting the 201). */
    async function create(overrides: Body = {}): Promise<TemplateView> {
      const response = await post(fresh(overrides));
      expect(response.statusCode, response.body).toBe(201);
      return response.json<TemplateView>();
    }

    const names = (response: LightMyRequestResponse): string[] => response.json<TemplateView[]>().map((t) => t.name);

    describe('when a template is created', () => {
      it('answers 201 with Location, ETag "1", X-Position and the template with its defaults', async () => {
        const body = fresh();
        const response = await post(body);

        expect(response.statusCode).toBe(201);
        const view = response.json<TemplateView>();
        expect(view).toEqual({
          id: expect.stringMatching(UUID) as unknown,
          name: body.name,
          template: body.template,
          description: '',
          labels: [],
          abstract: false,
          cloudResourceTypes: [],
          configuration: {},
          documentationUrl: null,
          status: 'enabled',
          executorIds: [],
          parentIds: [],
          ownerId: null,
          creatorId: (await inject({ method: 'GET', url: '/api/auth/me' })).json<{ id: string }>().id,
          revision: 1,
          createdAt: expect.stringMatching(ISO) as unknown,
          updatedAt: view.createdAt,
        });
        expect(response.headers.location).toBe(`/api/templates/${view.id}`);
        expect(response.headers.etag).toBe('"1"');
        expect(response.headers['x-position']).toMatch(/^\d+$/);
      });

      it('shows the same template to an immediate GET (read-your-writes)', async () => {
        const created = await post(fresh());
        const view = created.json<TemplateView>();

        const read = await get(view.id);

        expect(read.statusCode).toBe(200);
        expect(read.headers.etag).toBe('"1"');
        expect(read.json<TemplateView>()).toEqual(view);
      });

      it('shows it in the list at once', async () => {
        const label = uniqueSlug('listed');
        const view = await create({ labels: [label] });

        const response = await list({ filter: { labels: label } });

        expect(response.json<TemplateView[]>()).toEqual([view]);
      });

      it('keeps every optional field it is given', async () => {
        const parent = await create();
        const body = fresh({
          description: 'Frontend servers',
          labels: ['prod', 'eu'],
          abstract: true,
          cloudResourceTypes: ['aws_instance', 'aws_lb'],
          configuration: { size: 'large', tags: { team: 'web' } },
          parentIds: [parent.id],
          status: 'disabled',
        });

        const view = (await post(body)).json<TemplateView>();

        expect(view).toMatchObject({ ...body, executorIds: [], revision: 1 });
        expect((await get(view.id)).json<TemplateView>()).toEqual(view);
      });
    });

    describe('when many writes follow one another', () => {
      it('answers every write with the read model already showing it (read-your-writes)', async () => {
        // A window between the projection's in-memory position and its commit shows up only now and then.
        for (let round = 0; round < 40; round++) {
          const created = await post(fresh());
          expect(created.statusCode, `create #${round}: ${created.body}`).toBe(201);
          const view = created.json<TemplateView>();
          const patched = await patch(view.id, { description: `round ${round}` });
          expect(patched.json<TemplateView>(), `patch #${round}`).toMatchObject({ description: `round ${round}`, revision: 2 });
        }
      });
    });

    describe('when a template is read', () => {
      it('answers 200 with the ETag of its revision', async () => {
        const view = await create();
        await patch(view.id, { description: 'changed' });

        const response = await get(view.id);

        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBe('"2"');
        expect(response.json<TemplateView>()).toMatchObject({ id: view.id, description: 'changed', revision: 2 });
      });

      it('answers 404 with a problem for an unknown id', async () => {
        expectProblem(await get(randomUUID()), 404, { code: 'NOT_FOUND', detail: 'template not found' });
      });

      it('answers 400 naming id for an id that is not a UUID', async () => {
        expectProblem(await get('not-a-uuid'), 400, {
          code: 'VALIDATION',
          detail: 'invalid path: id',
          errors: [{ field: 'id', message: 'must be a UUID' }],
        });
      });

      it('treats an upper-case id as the same template (UUIDs are case-insensitive)', async () => {
        const view = await create();
        const upper = view.id.toUpperCase();

        expect((await get(upper)).json<TemplateView>()).toEqual(view);
        const patched = await patch(upper, { description: 'via upper-case id' });
        expect(patched.statusCode, patched.body).toBe(200);
        expect(patched.json<TemplateView>()).toMatchObject({ id: view.id, description: 'via upper-case id', revision: 2 });
        const child = await post(fresh({ parentIds: [upper] }));
        expect(child.statusCode, child.body).toBe(201);
        expect(child.json<TemplateView>().parentIds).toEqual([view.id]);
      });

      it('waits for an X-Min-Position it was given and answers', async () => {
        const created = await post(fresh());
        const position = created.headers['x-position'];
        expect(typeof position).toBe('string');

        const response = await get(created.json<TemplateView>().id, { 'x-min-position': String(position) });

        expect(response.statusCode).toBe(200);
      });

      it('answers 400 naming X-Min-Position when it is not a number', async () => {
        const view = await create();
        const expected = {
          code: 'VALIDATION',
          detail: 'X-Min-Position must be a position returned in an X-Position header',
          errors: [{ field: 'X-Min-Position', message: 'must be a non-negative integer' }],
        } as const;

        expectProblem(await get(view.id, { 'x-min-position': 'soon' }), 400, expected);
        expectProblem(await get(view.id, { 'x-min-position': '-1' }), 400, expected);
        expectProblem(await list({}, { 'x-min-position': '12abc' }), 400, expected);
      });
    });

    describe('when templates are listed', () => {
      // Five templates sharing a label no other test uses, created one clock tick apart, in this order.
      // Lower-case names with distinct first letters sort the same under every collation.
      const label = uniqueSlug('catalog');
      const created: TemplateView[] = [];
      let cutoff: string;

      beforeAll(async () => {
        const root = await create({ name: uniqueName('charlie root'), labels: [label, 'eu'], description: 'shared root' });
        created.push(root);
        created.push(await create({ name: uniqueName('alpha'), labels: [label], description: 'Frontend servers' }));
        cutoff = h.clock.peek().toISOString();
        created.push(await create({ name: uniqueName('echo'), labels: [label, 'eu'], status: 'disabled', parentIds: [root.id] }));
        created.push(await create({ name: uniqueName('bravo'), labels: [label], parentIds: [root.id] }));
        created.push(await create({ name: uniqueName('delta'), labels: [label, 'us'], description: 'backend POSTGRES cluster' }));
      });

      const nameAt = (index: number): string => {
        const view = created[index];
        if (!view) throw new Error(`no template #${index}`);
        return view.name;
      };
      const all = () => created.map((t) => t.name);

      it('sorts by createdAt descending by default', async () => {
        const response = await list({ filter: { labels: label } });

        expect(response.statusCode).toBe(200);
        expect(names(response)).toEqual(all().reverse());
        expect(response.headers['content-range']).toBe('templates 0-4/5');
      });

      it('filters by exact name', async () => {
        expect(names(await list({ filter: { labels: label, name: nameAt(1) } }))).toEqual([nameAt(1)]);
      });

      it('filters by name__like, case-insensitively', async () => {
        const response = await list({ filter: { labels: label, name__like: 'ALPHA' }, sort: ['createdAt', 'ASC'] });
        expect(names(response)).toEqual([nameAt(1)]);
      });

      it('filters by status', async () => {
        const response = await list({ filter: { labels: label, status: 'disabled' } });
        expect(names(response)).toEqual([nameAt(2)]);
        expect(response.headers['content-range']).toBe('templates 0-0/1');
      });

      it('filters by labels, requiring every label given', async () => {
        expect(names(await list({ filter: { labels: [label, 'eu'] }, sort: ['createdAt', 'ASC'] }))).toEqual([nameAt(0), nameAt(2)]);
        expect(names(await list({ filter: { labels: [label, 'eu', 'us'] } }))).toEqual([]);
      });

      it('searches name, slug and description with q', async () => {
        expect(names(await list({ filter: { labels: label, q: 'postgres' } }))).toEqual([nameAt(4)]);
        expect(names(await list({ filter: { labels: label, q: 'frontend' } }))).toEqual([nameAt(1)]);
      });

      it('filters by createdAt__gte (and its snake_case spelling)', async () => {
        const expected = [nameAt(2), nameAt(3), nameAt(4)];
        expect(names(await list({ filter: { labels: label, createdAt__gte: cutoff }, sort: ['createdAt', 'ASC'] }))).toEqual(expected);
        expect(names(await list({ filter: { labels: label, created_at__gte: cutoff }, sort: ['created_at', 'ASC'] }))).toEqual(expected);
      });

      it('filters by parentId', async () => {
        const root = created[0];
        if (!root) throw new Error('no root');
        const response = await list({ filter: { parentId: root.id }, sort: ['name', 'ASC'] });
        expect(names(response)).toEqual([nameAt(3), nameAt(2)]);
      });

      it('sorts by name in both directions, the direction in any case', async () => {
        const ascending = [...all()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const byName = (direction: string) => list({ filter: { labels: label }, sort: ['name', direction] });

        expect(names(await byName('ASC'))).toEqual(ascending);
        expect(names(await byName('desc'))).toEqual([...ascending].reverse());
      });

      it('pages with range, returning every row exactly once', async () => {
        const pages: [number, number, string][] = [
          [0, 2, 'templates 0-1/5'],
          [2, 2, 'templates 2-3/5'],
          [4, 2, 'templates 4-4/5'],
        ];
        const seen: string[] = [];
        for (const [offset, limit, contentRange] of pages) {
          const response = await list({ filter: { labels: label }, sort: ['createdAt', 'ASC'], range: [offset, limit] });
          expect(response.headers['content-range']).toBe(contentRange);
          seen.push(...names(response));
        }
        expect(seen).toEqual(all());
      });

      it('answers an empty page past the end with templates */total', async () => {
        const response = await list({ filter: { labels: label }, range: [10, 5] });
        expect(response.statusCode).toBe(200);
        expect(response.json<unknown[]>()).toEqual([]);
        expect(response.headers['content-range']).toBe('templates */5');
      });

      it('answers templates */0 when nothing matches', async () => {
        const response = await list({ filter: { labels: uniqueSlug('nothing') } });
        expect(response.statusCode).toBe(200);
        expect(response.json<unknown[]>()).toEqual([]);
        expect(response.headers['content-range']).toBe('templates */0');
      });
    });

    describe('when a template is patched', () => {
      it('applies a matching If-Match, answers 200 with revision 2 and shows it to the next read', async () => {
        const view = await create();
        const name = uniqueName('Renamed');

        const response = await patch(view.id, { name, labels: ['x'] }, { 'if-match': '"1"' });

        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBe('"2"');
        expect(response.headers['x-position']).toMatch(/^\d+$/);
        const patched = response.json<TemplateView>();
        expect(patched).toEqual({ ...view, name, labels: ['x'], revision: 2, updatedAt: patched.updatedAt });
        expect(patched.updatedAt > view.updatedAt).toBe(true);
        expect((await get(view.id)).json<TemplateView>()).toEqual(patched);
      });

      it('accepts If-Match as a bare number and as a weak ETag', async () => {
        const view = await create();
        expect((await patch(view.id, { description: 'one' }, { 'if-match': '1' })).statusCode).toBe(200);
        expect((await patch(view.id, { description: 'two' }, { 'if-match': 'W/"2"' })).statusCode).toBe(200);
        expect((await get(view.id)).json<TemplateView>()).toMatchObject({ description: 'two', revision: 3 });
      });

      it('answers 412 for a stale If-Match and changes nothing', async () => {
        const view = await create();
        await patch(view.id, { description: 'first' });

        const response = await patch(view.id, { description: 'second' }, { 'if-match': '"1"' });

        const problem = expectProblem(response, 412, {
          code: 'PRECONDITION_FAILED',
          detail: 'revision 1 is stale: the template is at revision 2',
        });
        expect(problem.revision).toBe(2);
        expect((await get(view.id)).json<TemplateView>()).toMatchObject({ description: 'first', revision: 2 });
      });

      it('answers 400 naming If-Match when it is malformed', async () => {
        const view = await create();
        const expected = {
          code: 'VALIDATION',
          detail: 'If-Match must be a revision number such as 3 or "3"',
          errors: [{ field: 'If-Match', message: 'must be a positive revision number' }],
        } as const;

        expectProblem(await patch(view.id, { description: 'x' }, { 'if-match': 'abc' }), 400, expected);
        expectProblem(await patch(view.id, { description: 'x' }, { 'if-match': '"0"' }), 400, expected);
      });

      it('answers 422 naming template when the slug would change', async () => {
        const view = await create();

        const response = await patch(view.id, { template: 'another_slug' });

        const message = `template is immutable (it is "${view.template}")`;
        expectProblem(response, 422, { code: 'UNPROCESSABLE', detail: message, errors: [{ field: 'template', message }] });
        expect((await get(view.id)).json<TemplateView>()).toEqual(view);
      });

      it('answers 200 with the revision unchanged when nothing changes', async () => {
        const view = await create({ labels: ['a'] });

        const response = await patch(
          view.id,
          { name: view.name, template: view.template, labels: ['a'], abstract: false },
          { 'if-match': '"1"' },
        );

        expect(response.statusCode).toBe(200);
        expect(response.headers.etag).toBe('"1"');
        expect(response.headers['x-position']).toBeUndefined();
        expect(response.json<TemplateView>()).toEqual(view);
      });

      it('answers 200 with the revision unchanged for an empty body', async () => {
        const view = await create();
        const response = await patch(view.id, {});
        expect(response.statusCode).toBe(200);
        expect(response.json<TemplateView>()).toEqual(view);
      });

      it('answers 422 naming parentIds when a template would become its own parent', async () => {
        const view = await create();
        const message = 'a template cannot be its own parent';
        expectProblem(await patch(view.id, { parentIds: [view.id] }), 422, {
          code: 'UNPROCESSABLE',
          detail: message,
          errors: [{ field: 'parentIds', message }],
        });
      });

      it('answers 404 for an unknown template', async () => {
        expectProblem(await patch(randomUUID(), { description: 'x' }), 404, { code: 'NOT_FOUND', detail: 'template not found' });
      });
    });

    describe('when a template is enabled or disabled', () => {
      it('disables it, does nothing when disabled again, and enables it', async () => {
        const view = await create();

        const disabled = await action(view.id, 'disable');
        expect(disabled.statusCode).toBe(200);
        expect(disabled.headers.etag).toBe('"2"');
        expect(disabled.json<TemplateView>()).toMatchObject({ status: 'disabled', revision: 2 });

        const again = await action(view.id, 'disable');
        expect(again.statusCode).toBe(200);
        expect(again.headers['x-position']).toBeUndefined();
        expect(again.json<TemplateView>()).toMatchObject({ status: 'disabled', revision: 2 });

        const enabled = await action(view.id, 'enable', { 'if-match': '"2"' });
        expect(enabled.statusCode).toBe(200);
        expect(enabled.json<TemplateView>()).toMatchObject({ status: 'enabled', revision: 3 });
        expect((await get(view.id)).json<TemplateView>()).toMatchObject({ status: 'enabled', revision: 3 });
      });

      it('does nothing when enabling an enabled template', async () => {
        const view = await create();
        const response = await action(view.id, 'enable');
        expect(response.statusCode).toBe(200);
        expect(response.json<TemplateView>()).toEqual(view);
      });

      it('answers 412 for an action with a stale If-Match', async () => {
        const view = await create();
        await action(view.id, 'disable');
        expectProblem(await action(view.id, 'enable', { 'if-match': '1' }), 412, {
          code: 'PRECONDITION_FAILED',
          detail: 'revision 1 is stale: the template is at revision 2',
        });
      });

      it('answers 400 naming action for an unknown action', async () => {
        const view = await create();
        expectProblem(await action(view.id, 'archive'), 400, {
          code: 'VALIDATION',
          detail: 'invalid path: action',
          errors: [{ field: 'action', message: 'unknown action; allowed: enable, disable' }],
        });
      });

      it('answers 404 for an unknown template', async () => {
        expectProblem(await action(randomUUID(), 'disable'), 404, { code: 'NOT_FOUND', detail: 'template not found' });
      });
    });

    describe('when a template is deleted', () => {
      it('answers 204, then 404 to reads, writes and another delete, and leaves the list', async () => {
        const label = uniqueSlug('deleted');
        const view = await create({ labels: [label] });

        const response = await remove(view.id);
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');

        expectProblem(await get(view.id), 404, { code: 'NOT_FOUND', detail: 'template not found' });
        expectProblem(await patch(view.id, { description: 'x' }), 404, { code: 'NOT_FOUND', detail: 'template not found' });
        expectProblem(await action(view.id, 'disable'), 404, { code: 'NOT_FOUND', detail: 'template not found' });
        expectProblem(await remove(view.id), 404, { code: 'NOT_FOUND', detail: 'template not found' });
        const listed = await list({ filter: { labels: label } });
        expect(listed.json<unknown[]>()).toEqual([]);
        expect(listed.headers['content-range']).toBe('templates */0');
      });

      it('answers 404 for an unknown template', async () => {
        expectProblem(await remove(randomUUID()), 404, { code: 'NOT_FOUND', detail: 'template not found' });
      });

      it('answers 409 listing the child while another template names it as a parent', async () => {
        const parent = await create();
        const child = await create({ parentIds: [parent.id] });

        const problem = expectProblem(await remove(parent.id), 409, {
          code: 'STILL_REFERENCED',
          detail: `template is still referenced by template "${child.name}"`,
        });

        expect(problem.referrers).toEqual([{ type: 'template', id: child.id, field: 'parentIds', name: child.name }]);
        expect((await get(parent.id)).statusCode).toBe(200);
      });

      it('allows the delete once the child no longer names it', async () => {
        const parent = await create();
        const child = await create({ parentIds: [parent.id] });
        expect((await patch(child.id, { parentIds: [] })).statusCode).toBe(200);

        expect((await remove(parent.id)).statusCode).toBe(204);
      });

      it('never lets a delete and a concurrent create naming the template as parent both succeed', async () => {
        // Serially, either the child comes first (delete → 409) or the delete does (create → 422).
        for (let round = 0; round < 10; round++) {
          const parent = await create();
          const [child, deletion] = await Promise.all([post(fresh({ parentIds: [parent.id] })), remove(parent.id)]);

          expect([201, 422]).toContain(child.statusCode);
          expect([204, 409]).toContain(deletion.statusCode);
          expect({ round, child: child.statusCode, deletion: deletion.statusCode }).not.toEqual({ round, child: 201, deletion: 204 });
        }
      });

      it('answers 412 for a delete with a stale If-Match', async () => {
        const view = await create();
        await patch(view.id, { description: 'x' });
        expectProblem(await remove(view.id, { 'if-match': '"1"' }), 412, {
          code: 'PRECONDITION_FAILED',
          detail: 'revision 1 is stale: the template is at revision 2',
        });
      });
    });

    describe('when relations are given', () => {
      it('links an existing, enabled parent', async () => {
        const parent = await create();
        const child = await create({ parentIds: [parent.id] });
        expect(child.parentIds).toEqual([parent.id]);
      });

      it('answers 422 naming parentIds[0] for a missing parent', async () => {
        const missing = randomUUID();
        expectProblem(await post(fresh({ parentIds: [missing] })), 422, {
          code: 'INVALID_REFERENCE',
          detail: 'invalid references: parentIds[0]',
          errors: [{ field: 'parentIds[0]', message: `template ${missing} does not exist` }],
        });
      });

      it('answers 422 naming parentIds[0] for a deleted parent', async () => {
        const parent = await create();
        await remove(parent.id);
        expectProblem(await post(fresh({ parentIds: [parent.id] })), 422, {
          code: 'INVALID_REFERENCE',
          errors: [{ field: 'parentIds[0]', message: `template ${parent.id} does not exist` }],
        });
      });

      it('answers 422 naming parentIds[0] for a disabled parent', async () => {
        const parent = await create({ status: 'disabled' });
        expectProblem(await post(fresh({ parentIds: [parent.id] })), 422, {
          code: 'INVALID_REFERENCE',
          detail: 'invalid references: parentIds[0]',
          errors: [{ field: 'parentIds[0]', message: `template ${parent.id} is disabled and cannot be newly referenced` }],
        });
      });

      it('answers 422 naming executorIds[0] for any executor, since executors do not exist yet', async () => {
        const executor = randomUUID();
        expectProblem(await post(fresh({ executorIds: [executor] })), 422, {
          code: 'INVALID_REFERENCE',
          detail: 'invalid references: executorIds[0]',
          errors: [{ field: 'executorIds[0]', message: `executor ${executor} does not exist` }],
        });
      });

      it('names every bad reference in one 422', async () => {
        const parent = await create();
        const missing = randomUUID();
        expectProblem(await post(fresh({ parentIds: [parent.id, missing], executorIds: [randomUUID()] })), 422, {
          code: 'INVALID_REFERENCE',
          detail: 'invalid references: parentIds[1], executorIds[0]',
          fields: ['parentIds[1]', 'executorIds[0]'],
        });
      });

      it('answers 422 when a patch adds a disabled parent, but keeps a parent disabled later', async () => {
        const kept = await create();
        const child = await create({ parentIds: [kept.id] });
        const disabledParent = await create({ status: 'disabled' });
        await action(kept.id, 'disable');

        expectProblem(await patch(child.id, { parentIds: [kept.id, disabledParent.id] }), 422, {
          code: 'INVALID_REFERENCE',
          errors: [{ field: 'parentIds[1]', message: `template ${disabledParent.id} is disabled and cannot be newly referenced` }],
        });
        const unrelated = await patch(child.id, { parentIds: [kept.id], description: 'still fine' });
        expect(unrelated.statusCode).toBe(200);
        expect(unrelated.json<TemplateView>()).toMatchObject({ parentIds: [kept.id], description: 'still fine' });
      });
    });

    describe('when names and slugs must be unique', () => {
      it('answers 409 naming name for a name that differs only in case', async () => {
        const first = await create();
        const name = first.name.toUpperCase();
        const message = `a template named "${name}" already exists`;
        expectProblem(await post(fresh({ name })), 409, { code: 'NOT_UNIQUE', detail: message, errors: [{ field: 'name', message }] });
      });

      it('answers 409 naming template for a slug in use', async () => {
        const first = await create();
        const message = `a template with the slug "${first.template}" already exists`;
        expectProblem(await post(fresh({ template: first.template })), 409, {
          code: 'NOT_UNIQUE',
          detail: message,
          errors: [{ field: 'template', message }],
        });
      });

      it('lets exactly one of two concurrent creates with the same name win, and the loser keeps nothing', async () => {
        const name = uniqueName('Race');
        const loserSlugs = [uniqueSlug('race'), uniqueSlug('race')];

        const responses = await Promise.all(loserSlugs.map((template) => post({ name, template })));

        expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 409]);
        const lost = responses.find((r) => r.statusCode === 409);
        if (!lost) throw new Error('no 409');
        expectProblem(lost, 409, { code: 'NOT_UNIQUE', fields: ['name'] });
        const won = responses.find((r) => r.statusCode === 201)?.json<TemplateView>();
        const lostSlug = loserSlugs.find((slug) => slug !== won?.template);
        // The refused create must not keep the slug it tried to reserve.
        expect((await post(fresh({ template: lostSlug }))).statusCode).toBe(201);
        expect(names(await list({ filter: { name } }))).toEqual([name]);
      });

      it('lets exactly one of twenty concurrent creates with the same name win', async () => {
        const name = uniqueName('Stampede');

        const responses = await Promise.all(Array.from({ length: 20 }, () => post(fresh({ name }))));

        const statuses = responses.map((r) => r.statusCode);
        expect(statuses.filter((s) => s === 201)).toHaveLength(1);
        expect(statuses.filter((s) => s === 409)).toHaveLength(19);
        for (const response of responses.filter((r) => r.statusCode === 409)) {
          expectProblem(response, 409, { code: 'NOT_UNIQUE', fields: ['name'] });
        }
        const listed = await list({ filter: { name } });
        expect(listed.headers['content-range']).toBe('templates 0-0/1');
      });

      it('lets exactly one of ten concurrent PATCHes with the same If-Match win; the others get 412', async () => {
        const view = await create();
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            inject({
              method: 'PATCH',
              url: `/api/templates/${view.id}`,
              headers: { 'if-match': '"1"' },
              payload: { description: `writer ${i}` },
            }),
          ),
        );
        const statuses = responses.map((r) => r.statusCode);
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
        expect(statuses.filter((s) => s === 412)).toHaveLength(9);
        const winner = responses.find((r) => r.statusCode === 200);
        expect(winner?.json<{ revision: number }>().revision).toBe(2);
      });

      it('frees the old name and takes the new one on a rename', async () => {
        const view = await create();
        const oldName = view.name;
        const newName = uniqueName('Renamed');

        expect((await patch(view.id, { name: newName })).statusCode).toBe(200);

        expect((await post(fresh({ name: oldName }))).statusCode).toBe(201);
        expectProblem(await post(fresh({ name: newName.toLowerCase() })), 409, { code: 'NOT_UNIQUE', fields: ['name'] });
      });

      it('answers 409 naming name when a rename takes a name in use, and lets a template change its own name case', async () => {
        const taken = await create();
        const view = await create();

        expectProblem(await patch(view.id, { name: taken.name }), 409, { code: 'NOT_UNIQUE', fields: ['name'] });
        const recased = await patch(view.id, { name: view.name.toUpperCase() });
        expect(recased.statusCode).toBe(200);
        expect(recased.json<TemplateView>()).toMatchObject({ name: view.name.toUpperCase(), revision: 2 });
      });

      it('frees the name and the slug once the template is deleted', async () => {
        const view = await create();
        expect((await remove(view.id)).statusCode).toBe(204);

        const again = await post({ name: view.name, template: view.template });

        expect(again.statusCode).toBe(201);
        expect(again.json<TemplateView>().id).not.toBe(view.id);
      });
    });

    describe('when the input is malformed', () => {
      it('answers 400 for a body that is not JSON', async () => {
        const response = await inject({
          method: 'POST',
          url: '/api/templates',
          payload: '{"name": ',
          headers: { 'content-type': 'application/json' },
        });
        expectProblem(response, 400, { code: 'VALIDATION', detail: /^the body is not valid JSON: / });
      });

      it('answers 400 naming an unknown body field', async () => {
        expectProblem(await post(fresh({ colour: 'blue' })), 400, {
          code: 'VALIDATION',
          detail: 'invalid body: colour',
          errors: [{ field: 'colour', message: 'unknown field' }],
        });
        const view = await create();
        expectProblem(await patch(view.id, { status: 'disabled' }), 400, {
          code: 'VALIDATION',
          detail: 'invalid body: status',
          errors: [{ field: 'status', message: 'unknown field' }],
        });
      });

      it('answers 400 for a PATCH body that is not a JSON object', async () => {
        const view = await create();
        const send = (payload: string) =>
          inject({ method: 'PATCH', url: `/api/templates/${view.id}`, payload, headers: { 'content-type': 'application/json' } });

        expectProblem(await send('[]'), 400, { code: 'VALIDATION', fields: ['body'] });
        expectProblem(await send('"name"'), 400, { code: 'VALIDATION', fields: ['body'] });
        expectProblem(await send('null'), 400, { code: 'VALIDATION', fields: ['body'] });
      });

      it('answers 400 naming each field of the wrong type', async () => {
        const response = await post({
          name: 5,
          template: 'ok_slug',
          labels: 'prod',
          abstract: 'yes',
          configuration: [],
          parentIds: ['not-a-uuid'],
        });
        expectProblem(response, 400, { code: 'VALIDATION', fields: ['name', 'labels', 'abstract', 'configuration', 'parentIds[0]'] });
      });

      it('answers 400 naming the required fields that are missing', async () => {
        expectProblem(await post({}), 400, { code: 'VALIDATION', fields: ['name', 'template'] });
        expectProblem(await inject({ method: 'POST', url: '/api/templates' }), 400, { code: 'VALIDATION', fields: ['name', 'template'] });
      });

      it('answers 400 naming template for a slug outside [a-z0-9_]+', async () => {
        expectProblem(await post(fresh({ template: 'Web-App' })), 400, {
          code: 'VALIDATION',
          detail: 'invalid body: template',
          errors: [{ field: 'template', message: 'must match [a-z0-9_]+' }],
        });
      });

      it('answers 400 naming range for a page larger than MAX_PAGE_SIZE or a negative one', async () => {
        expectProblem(await list({ range: [0, 1001] }), 400, {
          code: 'VALIDATION',
          detail: 'invalid list query: range: range limit 1001 exceeds the maximum page size of 1000',
          errors: [{ field: 'range', message: 'range limit 1001 exceeds the maximum page size of 1000' }],
        });
        expectProblem(await list({ range: [-1, 10] }), 400, { code: 'VALIDATION', fields: ['range'] });
      });

      it('answers 400 naming an unknown filter key', async () => {
        expectProblem(await list({ filter: { colour: 'blue' } }), 400, { code: 'VALIDATION', fields: ['filter.colour'] });
      });

      it('answers 400 for filter, sort or range that is not JSON, or an unknown sort field', async () => {
        expectProblem(await list({ filter: '{name' }), 400, {
          code: 'VALIDATION',
          errors: [{ field: 'filter', message: 'filter is not valid JSON' }],
        });
        expectProblem(await list({ range: '[0,' }), 400, {
          code: 'VALIDATION',
          errors: [{ field: 'range', message: 'range is not valid JSON' }],
        });
        expectProblem(await list({ sort: ['colour', 'ASC'] }), 400, { code: 'VALIDATION', fields: ['sort'] });
      });

      it('answers 404 with a problem for an unknown route', async () => {
        expectProblem(await inject({ method: 'GET', url: '/api/templatez' }), 404, {
          code: 'NOT_FOUND',
          detail: 'no route for GET /api/templatez',
        });
      });
    });
  });
}
