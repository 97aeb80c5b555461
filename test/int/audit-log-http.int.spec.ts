import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

interface Entry {
  at: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  verb: string;
  entityType: string;
  entityId: string | null;
  entityName: string | null;
  diff: { field: string; before?: unknown; after?: unknown }[];
  reason: string | null;
  names?: Record<string, string>;
}

const EXPORT_MAX = 10;

/** `?filter=…&sort=…&range=…` as the list endpoints read them. */
const listUrl = (filter: Record<string, unknown>, extra: Record<string, unknown> = {}): string => {
  const params = new URLSearchParams({ filter: JSON.stringify(filter), sort: JSON.stringify(['position', 'ASC']) });
  for (const [key, value] of Object.entries(extra)) params.set(key, JSON.stringify(value));
  return `/api/audit_log?${params.toString()}`;
};

/** CSV rows as arrays of cells (the test's own fields hold no quotes, commas or line breaks except where asserted). */
const csvRows = (text: string): string[][] =>
  text
    .split('\r\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        line
          .match(/("([^"]|"")*"|[^,]*)(,|$)/g)
          ?.slice(0, -1)
          .map((cell) =>
            cell
              .replace(/,$/, '')
              .replace(/^"(.*)"$/s, '$1')
              .replaceAll('""', '"'),
          ) ?? [],
    );

for (const target of databaseTargets()) {
  describe(`the audit log a person reads, over HTTP on ${target.name}`, () => {
    let h: HttpHarness;
    let approver: string;
    let approverId: string;
    let requester: string;
    const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const entries = async (filter: Record<string, unknown>, token?: string): Promise<Entry[]> => {
      const response = await h.inject({ method: 'GET', url: listUrl(filter), headers: token ? as(token) : {} });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Entry[]>();
    };
    const exportCsv = (filter: Record<string, unknown>, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
      h.inject({ method: 'GET', url: listUrl(filter, extra), headers: { accept: 'text/csv', ...headers } });

    beforeAll(async () => {
      h = await openHttpApp(target, { env: { AUDIT_EXPORT_MAX_ROWS: String(EXPORT_MAX) } });
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'Web cluster', template: 'web_cluster', abstract: true },
      });
      expect(template.statusCode, template.body).toBe(201);
      approver = await h.serviceAccount('approver', ['infra']);
      requester = await h.serviceAccount('requester', ['default']);
      approverId =
        (await h.inject({ method: 'GET', url: '/api/users?filter={"identifier":"approver"}' })).json<{ id: string }[]>()[0]?.id ?? '';
      for (const name of ['a', 'b', 'c'] as const) {
        const created = await h.inject({
          method: 'POST',
          url: '/api/resources',
          payload: { name: `orders-${name}`, templateId: template.json<{ id: string }>().id },
          headers: as(requester),
        });
        expect(created.statusCode, created.body).toBe(201);
        ids[name] = created.json<{ id: string }>().id;
      }
    });
    afterAll(async () => h.close());

    describe('approve and reject with a reason', () => {
      it('keeps a REST approval’s reason in the event and shows it in the resource’s history', async () => {
        const approved = await h.inject({
          method: 'POST',
          url: `/api/resources/${ids.a}/actions/approve`,
          payload: { reason: '  sized for Q3 traffic  ' },
          headers: as(approver),
        });
        expect(approved.statusCode, approved.body).toBe(200);
        const history = await entries({ entityId: ids.a });
        expect(
          history.map(({ verb, actorName, entityName, reason, diff }) => ({
            verb,
            actorName,
            entityName,
            reason,
            diff: diff.filter((d) => d.field === 'status'),
          })),
        ).toEqual([
          {
            verb: 'created',
            actorName: 'requester',
            entityName: 'orders-a',
            reason: null,
            diff: [{ field: 'status', after: 'approval_pending' }],
          },
          {
            verb: 'approved',
            actorName: 'approver',
            entityName: 'orders-a',
            reason: 'sized for Q3 traffic',
            diff: [{ field: 'status', before: 'approval_pending', after: 'ready' }],
          },
        ]);
      });

      it('takes a rejection’s reason through the GraphQL resourceAction input', async () => {
        const response = await h.inject({
          method: 'POST',
          url: '/api/graphql',
          headers: as(approver),
          payload: {
            query:
              'mutation ($id: UUID!) { resourceAction(id: $id, action: reject, input: {reason: "use the shared cluster"}) { status } }',
            variables: { id: ids.b },
          },
        });
        expect(response.json()).toEqual({ data: { resourceAction: { status: 'rejected' } } });
        const [rejected] = await entries({ entityId: ids.b, verb: 'rejected' });
        expect(rejected).toMatchObject({
          verb: 'rejected',
          reason: 'use the shared cluster',
          action: 'ResourceTransitioned',
          diff: [{ field: 'status', before: 'approval_pending', after: 'rejected' }],
        });
        const graphql = await h.inject({
          method: 'POST',
          url: '/api/graphql',
          headers: as(requester),
          payload: {
            query: 'query ($f: JSON) { auditLog(filter: $f) { verb reason entityName diff actor { name } } }',
            variables: { f: { entityId: ids.b, verb: 'rejected' } },
          },
        });
        expect(graphql.json()).toEqual({
          data: {
            auditLog: [
              {
                verb: 'rejected',
                reason: 'use the shared cluster',
                entityName: 'orders-b',
                diff: [{ field: 'status', before: 'approval_pending', after: 'rejected' }],
                actor: { name: 'approver' },
              },
            ],
          },
        });
      });

      it('approves without a reason, and refuses a bad one naming the field', async () => {
        for (const [payload, field] of [
          [{ reason: 42 }, 'reason'],
          [{ reason: 'x'.repeat(2001) }, 'reason'],
          [{ why: 'no' }, 'why'],
        ] as const) {
          const refused = await h.inject({
            method: 'POST',
            url: `/api/resources/${ids.c}/actions/approve`,
            payload,
            headers: as(approver),
          });
          expect(refused.statusCode, refused.body).toBe(400);
          expect(refused.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toContain(field);
        }
        const approved = await h.inject({ method: 'POST', url: `/api/resources/${ids.c}/actions/approve`, headers: as(approver) });
        expect(approved.statusCode, approved.body).toBe(200);
        expect((await entries({ entityId: ids.c, verb: 'approved' }))[0]?.reason).toBeNull();
      });
    });

    describe('filters', () => {
      it('by actor, entity type, verb, entity name and time range', async () => {
        const byApprover = await entries({ actorId: approverId, entityType: 'resource' });
        expect(byApprover.map((e) => `${e.verb} ${e.entityName ?? ''}`)).toEqual([
          'approved orders-a',
          'rejected orders-b',
          'approved orders-c',
        ]);
        expect((await entries({ verb: 'approved', entityType: 'resource' })).map((e) => e.entityName)).toEqual(['orders-a', 'orders-c']);
        expect((await entries({ entityName__like: 'ORDERS-C' })).map((e) => e.verb)).toEqual(['created', 'approved']);
        const rejectedAt = byApprover[1]?.at ?? '';
        expect((await entries({ at__gte: rejectedAt, at__lte: rejectedAt, entityType: 'resource' })).map((e) => e.verb)).toEqual([
          'rejected',
        ]);
        expect((await entries({ q: 'orders-b', verb: 'rejected' })).length).toBe(1);
      });

      it('refuses an unknown filter field as every list does', async () => {
        const response = await h.inject({ method: 'GET', url: listUrl({ entityname: 'x' }) });
        expect(response.statusCode).toBe(400);
      });
    });

    describe('the CSV export (Accept: text/csv)', () => {
      it('exports the filtered list with a header line, names and the diff as text', async () => {
        const response = await exportCsv({ actorId: approverId, entityType: 'resource' });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
        expect(response.headers['content-disposition']).toMatch(/^attachment; filename="audit-log-[0-9T-]+\.csv"$/);
        const [header, ...rows] = csvRows(response.body);
        expect(header).toEqual([
          'at',
          'actor',
          'actorId',
          'verb',
          'action',
          'entityType',
          'entityName',
          'entityId',
          'changes',
          'reason',
          'correlationId',
          'position',
        ]);
        expect(rows.map((r) => [r[1], r[3], r[6], r[8], r[9]])).toEqual([
          ['approver', 'approved', 'orders-a', 'status: approval_pending → ready', 'sized for Q3 traffic'],
          ['approver', 'rejected', 'orders-b', 'status: approval_pending → rejected', 'use the shared cluster'],
          ['approver', 'approved', 'orders-c', 'status: approval_pending → ready', ''],
        ]);
      });

      it('keeps to what the caller may read, like the list', async () => {
        const mine = await exportCsv({}, as(requester));
        expect(mine.statusCode, mine.body).toBe(200);
        const types = new Set(
          csvRows(mine.body)
            .slice(1)
            .map((r) => r[5]),
        );
        expect([...types].sort()).toEqual(['resource', 'template']);
        const anonymous = await h.app.inject({ method: 'GET', url: '/api/audit_log', headers: { accept: 'text/csv' } });
        expect(anonymous.statusCode).toBe(401);
      });

      it(`refuses more than AUDIT_EXPORT_MAX_ROWS (${EXPORT_MAX}) entries unless a range picks a part`, async () => {
        const total = (await entries({})).length;
        expect(total).toBeGreaterThan(EXPORT_MAX);
        const refused = await exportCsv({});
        expect(refused.statusCode).toBe(422);
        expect(refused.json<{ detail: string }>().detail).toContain(`more than AUDIT_EXPORT_MAX_ROWS (${EXPORT_MAX})`);
        const part = await exportCsv({}, {}, { range: [5, EXPORT_MAX] });
        expect(part.statusCode, part.body).toBe(200);
        expect(csvRows(part.body)).toHaveLength(EXPORT_MAX + 1);
        expect(part.headers['content-range']).toBe(`audit_log 5-${4 + EXPORT_MAX}/${total}`);
      });
    });

    describe('references by the names they had when the entry was written', () => {
      it('names a renamed template as it was then, and leaves out what the caller may not read', async () => {
        const templateId =
          (await h.inject({ method: 'GET', url: '/api/templates?filter={"template":"web_cluster"}' })).json<{ id: string }[]>()[0]?.id ??
          '';
        const renamed = await h.inject({ method: 'PATCH', url: `/api/templates/${templateId}`, payload: { name: 'Web fleet' } });
        expect(renamed.statusCode, renamed.body).toBe(200);
        const later = await h.inject({
          method: 'POST',
          url: '/api/resources',
          payload: { name: 'orders-d', templateId },
          headers: as(requester),
        });
        expect(later.statusCode, later.body).toBe(201);
        const created = (await entries({ verb: 'created', entityType: 'resource' })).map((e) => [e.entityName, e.names?.[templateId]]);
        expect(created).toEqual([
          ['orders-a', 'Web cluster'],
          ['orders-b', 'Web cluster'],
          ['orders-c', 'Web cluster'],
          ['orders-d', 'Web fleet'],
        ]);
        // The requester (the default role) reads templates but not users: the creator stays an id.
        const requesterId =
          (await h.inject({ method: 'GET', url: '/api/users?filter={"identifier":"requester"}' })).json<{ id: string }[]>()[0]?.id ?? '';
        const [first] = await entries({ entityId: ids.a, verb: 'created' });
        const [theirs] = await entries({ entityId: ids.a, verb: 'created' }, requester);
        expect(first?.diff.some((change) => change.field === 'creatorId')).toBe(true);
        expect(first?.names).toEqual({ [templateId]: 'Web cluster', [requesterId]: 'requester' });
        expect(theirs?.names).toEqual({ [templateId]: 'Web cluster' });
      });
    });
  });
}
