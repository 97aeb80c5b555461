import { z } from 'zod';
import { notFound } from '../errors.js';
import { allows, ensureAllowed } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import { DEFAULT_TREE_DEPTH, MAX_TREE_DEPTH, TREE_DIRECTIONS, treeOf, type Tree, type TreeKind, type TreeNode } from '../read/trees.js';
import type { Services } from '../services.js';
import { canonicalUuid, parseInput } from '../validation.js';

/** What a tree is asked with, from REST's path and query or GraphQL's arguments. */
const treeInput = z.object({
  id: canonicalUuid,
  direction: z.enum(TREE_DIRECTIONS, { message: 'must be children or parents' }),
  depth: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(MAX_TREE_DEPTH, `at most ${MAX_TREE_DEPTH}`)
    .default(DEFAULT_TREE_DEPTH),
});

/**
 * The tree of a resource or template (src/read/trees.ts) for a caller with the kind's read (neither
 * kind is private when owned: who reads the kind reads every node); 404 when it does not exist.
 */
export async function readTree(services: Services, principal: Principal, kind: TreeKind, input: unknown, where: string): Promise<Tree> {
  ensureAllowed(principal.permissions, `${kind}:read`);
  const { id, direction, depth } = parseInput(treeInput, input, where);
  const tree = await treeOf(services.db, kind, id, direction, depth);
  if (!tree) throw notFound(`${kind} not found`);
  // A resource's template is named only to those who may read templates (as GraphQL's `template` answers null).
  return allows(principal.permissions, 'template:read') ? tree : { ...tree, root: withoutTemplateNames(tree.root) };
}

function withoutTemplateNames(node: TreeNode): TreeNode {
  const next = node.children ?? node.parents;
  const key = node.children ? 'children' : 'parents';
  return { ...node, templateName: null, ...(next && { [key]: next.map(withoutTemplateNames) }) };
}
