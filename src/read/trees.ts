import { sql } from 'kysely';
import type { Db } from '../storage/kysely.js';

/**
 * An entity's relatives as a tree (docs/contract.md §2, "Relationships"): resources and templates
 * name parents, so from one of them the walk goes down through the entities that name it
 * (`children`) or up through those it names (`parents`), to a depth. One recursive statement; a
 * node reached twice (two parents in common) appears under each; a path never visits a node twice,
 * so even a cycle written before cycles were refused ends. Deleted entities are left out with what
 * lies beyond them.
 */

/** Which way a tree grows from its root. */
export const TREE_DIRECTIONS = ['children', 'parents'] as const;
/** `children` (what names it as a parent) or `parents` (what it names). */
export type TreeDirection = (typeof TREE_DIRECTIONS)[number];

/** The kinds whose entities name parents. */
export const TREE_KINDS = {
  resource: { table: 'resources', links: 'resource_parents', entity: 'resource_id' },
  template: { table: 'templates', links: 'template_parents', entity: 'template_id' },
} as const;
/** A kind with a tree. */
export type TreeKind = keyof typeof TREE_KINDS;

/** How deep a tree goes when not told. */
export const DEFAULT_TREE_DEPTH = 5;
/** How deep a tree may be asked to go. */
export const MAX_TREE_DEPTH = 20;
/** Nodes one tree holds at most (a wider one says `truncated`). */
export const MAX_TREE_NODES = 1000;

/** One entity in a tree, with the next level in the tree's direction. */
export interface TreeNode {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  /** A resource's lifecycle state (templates have none). */
  readonly state: string | null;
  /** A resource's template's name (null for templates). */
  readonly templateName: string | null;
  /** Its distance from the root. */
  readonly depth: number;
  readonly link: string;
  /** The next level: under `children` or `parents`, as the tree grows. */
  readonly children?: TreeNode[];
  readonly parents?: TreeNode[];
}

/** A whole tree and how it was cut. */
export interface Tree {
  readonly direction: TreeDirection;
  readonly depth: number;
  readonly root: TreeNode;
  /** Nodes in the tree (an entity reached by two paths counts twice). */
  readonly totalNodes: number;
  /** Whether MAX_TREE_NODES cut it short. */
  readonly truncated: boolean;
}

interface Row {
  readonly id: string;
  readonly path: string[];
  readonly depth: number;
  readonly name: string;
  readonly status: string;
  readonly state: string | null;
  readonly template_name: string | null;
}

/** The tree of `id` (undefined when it does not exist or is deleted). */
export async function treeOf(db: Db, kind: TreeKind, id: string, direction: TreeDirection, depth: number): Promise<Tree | undefined> {
  const { table, links, entity } = TREE_KINDS[kind];
  // Down: the rows that name the node as parent; up: the parents the node names.
  const [from, to] = direction === 'children' ? ['parent_id', entity] : [entity, 'parent_id'];
  const state = kind === 'resource' ? sql`e.state` : sql`NULL::text`;
  const templateName = kind === 'resource' ? sql`(SELECT t.name FROM templates t WHERE t.id = e.template_id)` : sql`NULL::text`;
  const { rows } = await sql<Row>`
    WITH RECURSIVE walk(id, path, depth) AS (
      SELECT e.id, ARRAY[e.id::text], 0 FROM ${sql.table(table)} e WHERE e.id = ${id} AND e.deleted_at IS NULL
      UNION ALL
      SELECT l.${sql.ref(to)}, w.path || l.${sql.ref(to)}::text, w.depth + 1
        FROM walk w JOIN ${sql.table(links)} l ON l.${sql.ref(from)} = w.id
        JOIN ${sql.table(table)} n ON n.id = l.${sql.ref(to)} AND n.deleted_at IS NULL
       WHERE w.depth < ${depth} AND NOT (l.${sql.ref(to)}::text = ANY(w.path))
    )
    SELECT w.id::text AS id, w.path, w.depth, e.name, e.status, ${state} AS state, ${templateName} AS template_name
      FROM walk w JOIN ${sql.table(table)} e ON e.id = w.id
     ORDER BY w.depth, lower(e.name), w.path
     LIMIT ${MAX_TREE_NODES + 1}`.execute(db);
  const kept = rows.slice(0, MAX_TREE_NODES);
  const first = kept[0];
  if (!first) return undefined;
  const plural = table;
  const nodes = new Map<string, TreeNode & { children?: TreeNode[]; parents?: TreeNode[] }>();
  for (const row of kept) {
    const node = {
      id: row.id,
      name: row.name,
      status: row.status,
      state: row.state,
      templateName: row.template_name,
      depth: row.depth,
      link: `/${plural}/${row.id}/show`,
      [direction]: [] as TreeNode[],
    };
    nodes.set(row.path.join('/'), node);
    // Rows come by depth, so the node's own parent in the walk is already there.
    const above = nodes.get(row.path.slice(0, -1).join('/'));
    if (above) (above[direction] ??= []).push(node);
  }
  const root = nodes.get(first.path.join('/'));
  if (!root) return undefined;
  return { direction, depth, root, totalNodes: kept.length, truncated: rows.length > MAX_TREE_NODES };
}

/**
 * The upstream project's shape of a tree (docs/contract.md §12): the root itself, its next level
 * always under `children` whatever the direction, the resource's template's name and an id of its
 * own per node (an entity reached by two paths is two nodes) — `template_name`, `node_id` as its
 * REST API spells them, `templateName`, `nodeId` as its GraphQL API does.
 */
export interface UpstreamTreeNode {
  readonly id: string;
  readonly name: string;
  readonly state: string | null;
  readonly status: string;
  readonly children: UpstreamTreeNode[];
  readonly [spelledByApi: string]: unknown;
}

/** How an API spells the upstream's two-word members. */
export type UpstreamSpelling = 'rest' | 'graphql';

const SPELLING = {
  rest: { nodeId: 'node_id', templateName: 'template_name' },
  graphql: { nodeId: 'nodeId', templateName: 'templateName' },
} as const;

/** `node` and what lies beyond it, in the upstream's shape (`nodeId` gives each node its id). */
export function upstreamTree(node: TreeNode, direction: TreeDirection, nodeId: () => string, spelling: UpstreamSpelling): UpstreamTreeNode {
  const names = SPELLING[spelling];
  return {
    id: node.id,
    [names.nodeId]: nodeId(),
    name: node.name,
    state: node.state,
    status: node.status,
    [names.templateName]: node.templateName,
    children: (node[direction] ?? []).map((next) => upstreamTree(next, direction, nodeId, spelling)),
  };
}

/** `tree` with its root's members beside ours in the upstream's shape, as REST and GraphQL answer it. */
export const withUpstreamShape = (tree: Tree, nodeId: () => string, spelling: UpstreamSpelling): Tree & UpstreamTreeNode => ({
  ...tree,
  ...upstreamTree(tree.root, tree.direction, nodeId, spelling),
});
