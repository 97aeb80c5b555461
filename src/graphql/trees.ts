import { randomUUID } from 'node:crypto';
import { readTree } from '../edge/trees.js';
import { DEFAULT_TREE_DEPTH, MAX_TREE_DEPTH, withUpstreamShape } from '../read/trees.js';
import { principalOf, type FieldResolver } from './context.js';
import { member } from './sdl-doc.js';

const treeDoc = (kind: string): string =>
  `The ${kind}'s relatives as a tree, as \`GET /api/${kind}s/{id}/tree/{direction}\` answers it: \`direction\` \`children\` (what names ` +
  `it as a parent) or \`parents\` (what it names), \`depth\` ${DEFAULT_TREE_DEPTH} unless given (at most ${MAX_TREE_DEPTH}). ` +
  '`{direction, depth, root: {id, name, status, state, templateName, depth, link, children | parents: […]}, totalNodes, truncated}` ' +
  "and beside them the root in the upstream project's shape (`id`, `nodeId`, `name`, `state`, `status`, `templateName`, " +
  '`children`); null when it does not exist.';

/** Relationships as trees (docs/contract.md §2), as GraphQL answers them. */
export const TREES_SDL = `extend type Query {
${member(treeDoc('resource'), 'resourceTree(id: UUID!, direction: String!, depth: Int): JSON')}${member(
  treeDoc('template'),
  'templateTree(id: UUID!, direction: String!, depth: Int): JSON',
)}}
`;

const resolver =
  (kind: 'resource' | 'template'): FieldResolver =>
  async (_root, args, context) => {
    try {
      const tree = await readTree(context.services, principalOf(context), kind, { ...args, depth: args.depth ?? undefined }, 'arguments');
      return withUpstreamShape(tree, randomUUID, 'graphql');
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  };

/** The resolvers of TREES_SDL. */
export const treeResolvers: { Query: Record<string, FieldResolver> } = {
  Query: { resourceTree: resolver('resource'), templateTree: resolver('template') },
};
