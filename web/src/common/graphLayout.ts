import { graphlib, layout as layOut } from '@dagrejs/dagre';
import type { Direction, Tree, TreeNode } from './trees.js';

/**
 * The relationships graph's layout (RelationsGraph.tsx): a layered layout by dagre, each node a fixed
 * box at its natural size, so a graph of hundreds of entities grows the drawing (which scrolls)
 * rather than shrinking its text.
 */

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 40;
/** Characters of a name shown in a node (the whole name in its tooltip and accessible name). */
const LABEL = 22;

export interface Placed {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly link: string;
  readonly x: number;
  readonly y: number;
  readonly self: boolean;
}

export interface Laid {
  readonly nodes: readonly Placed[];
  readonly edges: readonly { readonly key: string; readonly points: readonly { x: number; y: number }[] }[];
  readonly width: number;
  readonly height: number;
}

/** Both trees as one graph (an entity reached twice is one node), laid out parents to the left, children to the right. */
export function layoutOf(parents: Tree, children: Tree): Laid {
  const graph = new graphlib.Graph({ multigraph: false });
  // Left to right: a resource with many children (the common shape) grows down, the way a page scrolls.
  graph.setGraph({ rankdir: 'LR', nodesep: 12, ranksep: 64, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const seen = new Map<string, TreeNode>();
  const add = (node: TreeNode): void => {
    if (!seen.has(node.id)) {
      seen.set(node.id, node);
      graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
    }
  };
  const walk = (node: TreeNode, direction: Direction): void => {
    add(node);
    for (const next of node[direction] ?? []) {
      add(next);
      // Edges always run parent → child, so the layout ranks parents first.
      if (direction === 'children') graph.setEdge(node.id, next.id);
      else graph.setEdge(next.id, node.id);
      walk(next, direction);
    }
  };
  walk(parents.root, 'parents');
  walk(children.root, 'children');
  layOut(graph);
  const nodes = [...seen.values()].map((node): Placed => {
    const { x, y } = graph.node(node.id) as { x: number; y: number };
    return { id: node.id, name: node.name, status: node.status, link: node.link, x, y, self: node.id === parents.root.id };
  });
  const edges = graph.edges().map((edge: { v: string; w: string }) => ({
    key: `${edge.v}-${edge.w}`,
    points: ((graph.edge(edge) as { points?: { x: number; y: number }[] }).points ?? []).map(({ x, y }) => ({ x, y })),
  }));
  const { width = 0, height = 0 } = graph.graph() as { width?: number; height?: number };
  return { nodes, edges, width, height };
}

export const short = (name: string): string => (name.length > LABEL ? `${name.slice(0, LABEL - 1)}…` : name);

export const pathOf = (points: readonly { x: number; y: number }[]): string =>
  points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ');
