import type { OpenAPIV3_1 } from 'openapi-types';
import { DEFAULT_TREE_DEPTH, MAX_TREE_DEPTH, MAX_TREE_NODES, TREE_DIRECTIONS, TREE_KINDS } from '../../read/trees.js';
import { jsonResponse, param, problems, type Paths } from './components.js';

const node: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['id', 'name', 'status', 'state', 'templateName', 'depth', 'link'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    status: { type: 'string' },
    state: { type: ['string', 'null'], description: "A resource's lifecycle state (null for templates)." },
    templateName: { type: ['string', 'null'], description: "A resource's template's name (null for templates)." },
    depth: { type: 'integer', description: 'Its distance from the root.' },
    link: { type: 'string', description: 'Its page in the web UI.' },
    children: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' }, description: 'The next level down (direction children).' },
    parents: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' }, description: 'The next level up (direction parents).' },
  },
};

/** The upstream project's node: the next level always under `children`, a `node_id` per node. */
const upstreamMembers: Record<string, OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject> = {
  id: { type: 'string', format: 'uuid' },
  node_id: { type: 'string', format: 'uuid', description: 'This node’s own id (an entity reached by two paths is two nodes).' },
  name: { type: 'string' },
  state: { type: ['string', 'null'] },
  status: { type: 'string' },
  template_name: { type: ['string', 'null'] },
  children: {
    type: 'array',
    items: { $ref: '#/components/schemas/UpstreamTreeNode' },
    description: 'The next level, whatever the direction.',
  },
};
const upstreamNode: OpenAPIV3_1.SchemaObject = { type: 'object', required: Object.keys(upstreamMembers), properties: upstreamMembers };

const tree: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  description: "Ours (`direction` … `truncated`), and beside them the root's members in the upstream project's shape (`id` … `children`).",
  required: ['direction', 'depth', 'root', 'totalNodes', 'truncated', ...Object.keys(upstreamMembers)],
  properties: {
    direction: { type: 'string', enum: [...TREE_DIRECTIONS] },
    depth: { type: 'integer' },
    root: { $ref: '#/components/schemas/TreeNode' },
    totalNodes: { type: 'integer', description: 'Nodes in the tree (one reached by two paths counts twice).' },
    truncated: { type: 'boolean', description: `Whether it was cut at ${MAX_TREE_NODES} nodes.` },
    ...upstreamMembers,
  },
};

/** The tree node schemas, for components. */
export const treeSchemas = { TreeNode: node, UpstreamTreeNode: upstreamNode };

/** `GET /api/{resources|templates}/{id}/tree/{direction}`: an entity's relatives, nested. */
export function treePaths(): Paths {
  return Object.fromEntries(
    Object.entries(TREE_KINDS).map(([kind, { table }]) => [
      `/api/${table}/{id}/tree/{direction}`,
      {
        parameters: [
          param('id'),
          { name: 'direction', in: 'path', required: true, schema: { type: 'string', enum: [...TREE_DIRECTIONS] } },
        ],
        get: {
          tags: [table.charAt(0).toUpperCase() + table.slice(1)],
          operationId: `tree_of_${table}`,
          summary: `A ${kind}'s relatives as a tree`,
          description:
            `\`children\`: what names it as a parent, and so on down; \`parents\`: what it names, and so on up. ` +
            `Deleted ${table} are left out with what lies beyond them; a node reached by two paths appears under each. ` +
            `Needs \`${kind}:read\`.`,
          parameters: [
            {
              name: 'depth',
              in: 'query',
              description: `How many levels (default ${DEFAULT_TREE_DEPTH}, at most ${MAX_TREE_DEPTH}).`,
              schema: { type: 'integer', minimum: 1, maximum: MAX_TREE_DEPTH },
            },
          ],
          responses: { '200': jsonResponse('The tree.', tree), ...problems(400, 401, 403, 404, 503) },
        },
      },
    ]),
  );
}
