import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

interface Node {
  name: string;
  depth: number;
  children?: Node[];
  parents?: Node[];
}

/** Names of a tree, nested as `name[child, child[…]]`: what a test can compare at a glance. */
const shape = (node: Node, key: 'children' | 'parents'): string => {
  const next = node[key] ?? [];
  return next.length === 0 ? node.name : `${node.name}[${next.map((n) => shape(n, key)).join(', ')}]`;
};

/**
 * Relationships (docs/contract.md §2): a resource's and a template's relatives as trees, both ways,
 * to a depth; a template's resources and a source code's versions over GraphQL.
 */
for (const target of databaseTargets()) {
  describe(`relationship trees on ${target.name}`, () => {
    let h: HttpHarness;
    const ids = new Map<string, string>();
    let templateId: string;

    const resource = async (name: string, parents: string[] = []) => {
      const created = await h.inject({
        method: 'POST',
        url: '/api/resources',
        payload: { name, templateId, parentIds: parents.map((p) => ids.get(p)) },
      });
      expect(created.statusCode, created.body).toBe(201);
      ids.set(name, created.json<{ id: string }>().id);
    };
    const tree = async (kind: string, name: string, direction: string, query = '') =>
      h.inject({ method: 'GET', url: `/api/${kind}/${ids.get(name) ?? name}/tree/${direction}${query}` });

    beforeAll(async () => {
      h = await openHttpApp(target);
      const template = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'tree net', template: 'tree_net', abstract: true },
      });
      templateId = template.json<{ id: string }>().id;
      // network ← cluster ← (app, jobs); app also on database ← network
      await resource('network');
      await resource('cluster', ['network']);
      await resource('database', ['network']);
      await resource('app', ['cluster', 'database']);
      await resource('jobs', ['cluster']);
    });
    afterAll(() => h.close());

    it('grows a resource’s children to the depth asked, a node with two parents under each', async () => {
      const down = await tree('resources', 'network', 'children');
      expect(down.statusCode, down.body).toBe(200);
      const body = down.json<{ root: Node; totalNodes: number; truncated: boolean; depth: number; direction: string }>();
      expect(shape(body.root, 'children')).toBe('network[cluster[app, jobs], database[app]]');
      expect(body).toMatchObject({ direction: 'children', depth: 5, totalNodes: 6, truncated: false });
      const shallow = (await tree('resources', 'network', 'children', '?depth=1')).json<{ root: Node }>();
      expect(shape(shallow.root, 'children')).toBe('network[cluster, database]');
    });

    it('grows parents upwards, and leaves out what was deleted', async () => {
      const up = (await tree('resources', 'app', 'parents')).json<{ root: Node }>();
      expect(shape(up.root, 'parents')).toBe('app[cluster[network], database[network]]');
      await resource('orphan', ['jobs']);
      expect((await h.inject({ method: 'DELETE', url: `/api/resources/${ids.get('orphan') ?? ''}` })).statusCode).toBe(204);
      const down = (await tree('resources', 'cluster', 'children')).json<{ root: Node }>();
      expect(shape(down.root, 'children')).toBe('cluster[app, jobs]');
    });

    it('answers templates too, and refuses a bad direction or depth naming it', async () => {
      const parent = await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'tree base', template: 'tree_base' } });
      const parentId = parent.json<{ id: string }>().id;
      const child = await h.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: 'tree web', template: 'tree_web', parentIds: [parentId] },
      });
      const childId = child.json<{ id: string }>().id;
      expect(shape((await tree('templates', parentId, 'children')).json<{ root: Node }>().root, 'children')).toBe('tree base[tree web]');
      expect(shape((await tree('templates', childId, 'parents')).json<{ root: Node }>().root, 'parents')).toBe('tree web[tree base]');
      const sideways = await tree('templates', childId, 'sideways');
      expect(sideways.statusCode).toBe(400);
      expect(sideways.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['direction']);
      const deep = await tree('templates', childId, 'parents', '?depth=99');
      expect(deep.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['depth']);
      expect((await tree('templates', '00000000-0000-4000-8000-000000000000', 'parents')).statusCode).toBe(404);
    });

    it('answers the same trees over GraphQL, with a template’s resources and a source code’s versions', async () => {
      const answer = await h.inject({
        method: 'POST',
        url: '/api/graphql',
        payload: {
          query: `query ($id: UUID!, $template: UUID!) {
            resourceTree(id: $id, direction: "children", depth: 1)
            template(id: $template) { resources { name } }
          }`,
          variables: { id: ids.get('network'), template: templateId },
        },
      });
      const data = answer.json<{ data: { resourceTree: { root: Node }; template: { resources: { name: string }[] } } }>().data;
      expect(shape(data.resourceTree.root, 'children')).toBe('network[cluster, database]');
      expect(data.template.resources.map((r) => r.name)).toEqual(['network', 'cluster', 'database', 'app', 'jobs']);
    });
  });
}
