import type { OpenAPIV3_1 } from 'openapi-types';
import { DEFAULT_TREE_DEPTH, MAX_TREE_DEPTH, MAX_TREE_NODES, TREE_DIRECTIONS, TREE_KINDS } from '../../read/trees.js';
import { jsonResponse, param, problems, type Paths } from './components.js';

const node: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['id', 'name', 'status', 'state', 'depth', 'link'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    status: { type: 'string' },
    state: { type: ['string', 'null'], description: "A resource's lifecycle state (null for templates)." },
    depth: { type: 'integer', description: 'Its distance from the root.' },
    link: { type: 'string', description: 'Its page in the web UI.' },
    children: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' }, description: 'The next level down (direction children).' },
    parents: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' }, description: 'The next level up (direction parents).' },
  },
};

const tree: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  required: ['direction', 'depth', 'root', 'totalNodes', 'truncated'],
  properties: {
    direction: { type: 'string', enum: [...TREE_DIRECTIONS] },
    depth: { type: 'integer' },
    root: { $ref: '#/components/schemas/TreeNode' },
    totalNodes: { type: 'integer', description: 'Nodes in the tree (one reached by two paths counts twice).' },
    truncated: { type: 'boolean', description: `Whether it was cut at ${MAX_TREE_NODES} nodes.` },
  },
};

/** The tree node schema, for components. */
export const treeSchemas = { TreeNode: node };

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
