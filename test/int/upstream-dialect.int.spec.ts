import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { graphqlOf } from '../support/graphql-call.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * The upstream project's dialect (docs/contract.md): operation documents written for this suite in
 * the shapes the upstream's web UI sends (an entity page's query with its `{kind}Actions` and
 * `userEntityPermissions`, lists asking every row's `entityName`), validated and run as they are.
 */
const ENTITY_PAGE = (kind: string, fields: string) => `query Entity($id: UUID!) {
  ${kind}(id: $id) { ${fields} }
  ${kind}Actions: ${kind}Actions(id: $id)
  userEntityPermissions: userEntityPermissions(entityName: "${kind}", entityId: $id)
}`;

for (const target of databaseTargets()) {
  describe(`the upstream's documents on ${target.name}`, () => {
    let h: HttpHarness;
    let developer: string;
    const ids: Record<string, string> = {};
    const graphql = graphqlOf(() => h);
    const statements: string[] = [];
    /** Creates over REST (201 or the test fails) and answers the entity as written. */
    const create = async <T = { id: string }>(plural: string, payload: Record<string, unknown>): Promise<T> => {
      const created = await h.inject({ method: 'POST', url: `/api/${plural}`, payload });
      expect(created.statusCode, created.body).toBe(201);
      return created.json<T>();
    };

    beforeAll(async () => {
      h = await openHttpApp(target, { onQuery: (text) => statements.push(text) });
      developer = await h.serviceAccount('upstream-developer', ['default']);
      ids.template = (await create('templates', { name: 'Kafka topic', template: 'kafka_topic' })).id;
      ids.sourceCode = (
        await create('source_codes', {
          sourceCodeUrl: 'https://git.example.test/kafka.git',
          sourceCodeProvider: 'git_public',
        })
      ).id;
      await h.inject({ method: 'PATCH', url: `/api/templates/${ids.template}`, payload: { description: 'Topics with retention' } });
    });
    afterAll(async () => h.close());

    it("answers an entity page's query: the entity with entityName and revisionNumber, its actions and your levels", async () => {
      const answer = await graphql(ENTITY_PAGE('template', 'id entityName name revisionNumber revision isFavorite'), { id: ids.template });
      expect(answer).toEqual({
        data: {
          template: { id: ids.template, entityName: 'template', name: 'Kafka topic', revisionNumber: 2, revision: 2, isFavorite: false },
          templateActions: expect.arrayContaining(['update', 'delete', 'disable']) as unknown,
          userEntityPermissions: ['read', 'write', 'admin'],
        },
      });
      const page = await graphql(ENTITY_PAGE('sourceCode', 'id entityName sourceCodeUrl'), { id: ids.sourceCode });
      expect(page.errors).toBeUndefined();
      expect(page.data).toMatchObject({
        sourceCode: { entityName: 'source_code', sourceCodeUrl: 'https://git.example.test/kafka.git' },
        userEntityPermissions: ['read', 'write', 'admin'],
      });
    });

    it('answers a reader with the levels and actions a reader has, and nothing for what does not exist', async () => {
      const mine = await graphql(ENTITY_PAGE('template', 'id entityName'), { id: ids.template }, developer);
      expect(mine).toEqual({
        data: { template: { id: ids.template, entityName: 'template' }, templateActions: [], userEntityPermissions: ['read'] },
      });
      const none = await graphql(ENTITY_PAGE('template', 'id'), { id: '00000000-0000-4000-8000-000000000000' });
      expect(none).toEqual({ data: { template: null, templateActions: [], userEntityPermissions: [] } });
      // The upstream names kinds in camel case or snake case alike.
      const snake = await graphql('query($id: UUID!) { userEntityPermissions(entityName: "source_code", entityId: $id) }', {
        id: ids.sourceCode,
      });
      expect(snake).toEqual({ data: { userEntityPermissions: ['read', 'write', 'admin'] } });
    });

    it("counts a template's resources in one statement for the whole answer", async () => {
      const queueId = (await create('templates', { name: 'Queue', template: 'queue', abstract: true })).id;
      for (const name of ['orders', 'billing']) await create('resources', { name, templateId: queueId });
      statements.length = 0;
      const answer = await graphql('{ templates(sort: ["name", "ASC"]) { name resourcesCount } }');
      expect(statements.filter((text) => text.includes('FROM resources r'))).toHaveLength(1);
      expect(answer).toEqual({
        data: {
          templates: [
            { name: 'Kafka topic', resourcesCount: 0 },
            { name: 'Queue', resourcesCount: 2 },
          ],
        },
      });
      const one = await graphql('query($id: UUID!) { template(id: $id) { resourcesCount } }', { id: queueId }, developer);
      expect(one).toEqual({ data: { template: { resourcesCount: 2 } } });
    });

    it("keeps a version's breaking changes, and answers null for a version that breaks nothing", async () => {
      const version = (payload: Record<string, unknown>) =>
        create('source_code_versions', { templateId: ids.template, sourceCodeId: ids.sourceCode, sourceCodeFolder: 'topics', ...payload });
      await version({ sourceCodeVersion: 'v1.0.0' });
      await version({ sourceCodeVersion: 'v2.0.0', breakingChanges: '  retention is in hours now  ' });
      const answer = await graphql('{ sourceCodeVersions(sort: ["identifier", "ASC"]) { identifier entityName breakingChanges } }');
      expect(answer).toEqual({
        data: {
          sourceCodeVersions: [
            { identifier: 'topics:v1.0.0', entityName: 'source_code_version', breakingChanges: null },
            { identifier: 'topics:v2.0.0', entityName: 'source_code_version', breakingChanges: 'retention is in hours now' },
          ],
        },
      });
    });

    it("orders a template's versions by the index the upstream's reorder writes, each counting the resources that run it", async () => {
      const template = (await create('templates', { name: 'Bucket', template: 'bucket' })).id;
      const version = (tag: string, index?: number) =>
        create<{ id: string; index: number }>('source_code_versions', {
          templateId: template,
          sourceCodeId: ids.sourceCode,
          sourceCodeFolder: 'buckets',
          sourceCodeVersion: tag,
          index,
        });
      const [first, second, third] = [await version('v1.0.0'), await version('v2.0.0', 1), await version('v3.0.0', 2)];
      expect(first.index).toBe(0);
      await create('resources', { name: 'assets', templateId: template, sourceCodeVersionId: second.id });
      // The reorder dialog's save: the newest version first.
      const moved = await graphql(
        `
          mutation UpdateVersion($id: UUID!, $input: SourceCodeVersionUpdateInput!) {
            updateSourceCodeVersion(id: $id, input: $input) {
              id
              identifier
              entityName
            }
          }
        `,
        // As the dialog sends it: the lifecycle state in upper case, as GraphQL enums are written.
        { id: third.id, input: { index: 0, lifecycleState: 'ACTIVE' } },
      );
      expect(moved.errors).toBeUndefined();
      await graphql('mutation($id: UUID!) { updateSourceCodeVersion(id: $id, input: { index: 2 }) { id } }', { id: first.id });
      const list = await graphql(
        `
          query VersionsByTemplate($filter: JSON, $sort: [String!], $range: [Int!]) {
            sourceCodeVersions(filter: $filter, sort: $sort, range: $range) {
              identifier
              index
              lifecycleState
              entityName
              resourcesCount
            }
            sourceCodeVersionsCount(filter: $filter)
          }
        `,
        { filter: { templateId: template }, sort: ['index', 'ASC'], range: [0, 10] },
      );
      expect(list).toEqual({
        data: {
          sourceCodeVersions: [
            { identifier: 'buckets:v3.0.0', index: 0, lifecycleState: 'active', entityName: 'source_code_version', resourcesCount: 0 },
            { identifier: 'buckets:v2.0.0', index: 1, lifecycleState: 'preview', entityName: 'source_code_version', resourcesCount: 1 },
            { identifier: 'buckets:v1.0.0', index: 2, lifecycleState: 'preview', entityName: 'source_code_version', resourcesCount: 0 },
          ],
          sourceCodeVersionsCount: 3,
        },
      });
      // Only the case is forgiven: a value that is none of the declared ones is refused, naming them.
      const unknown = await graphql(
        'mutation($id: UUID!) { updateSourceCodeVersion(id: $id, input: { lifecycleState: "RETIRED" }) { id } }',
        {
          id: first.id,
        },
      );
      expect(unknown.errors?.[0]?.message).toContain('lifecycleState');
      const negative = await h.inject({ method: 'PATCH', url: `/api/source_code_versions/${first.id}`, payload: { index: -1 } });
      expect(negative.statusCode).toBe(400);
      expect(negative.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([
        expect.objectContaining({ field: 'index', message: 'must be 0 or more' }),
      ]);
    });

    it("takes an action in the upstream's shape: input.action, its input typed {Kind}ActionInput", async () => {
      const { id } = await create('templates', { name: 'Topic mirror', template: 'topic_mirror' });
      const upstreamAction = `
        mutation TemplateAction($id: UUID!, $input: TemplateActionInput!) {
          templateAction(id: $id, input: $input) { id entityName status }
        }`;
      const disabled = await graphql(upstreamAction, { id, input: { action: 'disable' } });
      expect(disabled).toEqual({ data: { templateAction: { id, entityName: 'template', status: 'disabled' } } });
      const enabled = await graphql(upstreamAction, { id, input: { action: 'enable' } });
      expect(enabled.data).toEqual({ templateAction: { id, entityName: 'template', status: 'enabled' } });
      // Ours is unchanged beside it.
      const ours = await graphql('mutation($id: UUID!) { templateAction(id: $id, action: disable) { status } }', { id });
      expect(ours.data).toEqual({ templateAction: { status: 'disabled' } });
      await graphql('mutation($id: UUID!) { templateAction(id: $id, action: enable) { status } }', { id });
      // An action the kind does not have, or none at all, is refused naming where it was looked for.
      const unknown = await graphql(upstreamAction, { id, input: { action: 'explode' } });
      expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'input.action' }] });
      const none = await graphql('mutation($id: UUID!) { templateAction(id: $id) { id } }', { id });
      expect(none.errors?.[0]?.extensions).toMatchObject({ errors: [{ field: 'action' }] });
    });

    it("answers the upstream's tree documents, which select fields of a tree that answers JSON here", async () => {
      const parent = (await create('templates', { name: 'Cluster', template: 'cluster' })).id;
      await create('templates', { name: 'Namespace', template: 'namespace', parentIds: [parent] });
      const answer = await graphql(
        `
          query TemplateTree($id: UUID!, $direction: String!) {
            templateTree(id: $id, direction: $direction) {
              id
              name
              status
              nodeId
              children {
                id
                name
                status
                nodeId
                children {
                  id
                  name
                }
              }
            }
          }
        `,
        { id: parent, direction: 'children' },
      );
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.templateTree).toMatchObject({
        id: parent,
        name: 'Cluster',
        status: 'enabled',
        children: [{ name: 'Namespace', templateName: null, nodeId: expect.any(String) as unknown, children: [] }],
        root: { id: parent },
      });
    });

    it("updates a user as the upstream's user form sends it: the input named body", async () => {
      const users = await graphql('{ users(filter: {identifier: "upstream-developer"}) { id } }');
      const id = (users.data?.users as { id: string }[])[0]?.id;
      const answer = await graphql(
        `
          mutation UpdateUser($id: UUID!, $body: UserUpdateInput!) {
            updateUser(id: $id, body: $body) {
              id
              identifier
              entityName
              displayName
            }
          }
        `,
        { id, body: { displayName: 'Upstream Developer' } },
      );
      expect(answer).toEqual({
        data: { updateUser: { id, identifier: 'upstream-developer', entityName: 'user', displayName: 'Upstream Developer' } },
      });
    });

    it('names every row of every list by its kind, as the upstream’s tables ask', async () => {
      const answer = await graphql('{ templates { entityName revisionNumber } sourceCodes { entityName } users { entityName } }');
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toMatchObject({
        templates: expect.arrayContaining([{ entityName: 'template', revisionNumber: 2 }]) as unknown,
        sourceCodes: [{ entityName: 'source_code' }],
      });
      expect((answer.data?.users as { entityName: string }[]).every((user) => user.entityName === 'user')).toBe(true);
    });
  });
}
