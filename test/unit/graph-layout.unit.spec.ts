import { describe, expect, it } from 'vitest';
import { layoutOf, NODE_HEIGHT, NODE_WIDTH, short } from '../../web/src/common/graphLayout.js';
import type { Tree, TreeNode } from '../../web/src/common/trees.js';

const node = (name: string, more: Partial<TreeNode> = {}): TreeNode => ({
  id: name,
  name,
  status: 'ready',
  link: `/resources/${name}/show`,
  ...more,
});

const tree = (root: TreeNode, totalNodes: number): Tree => ({ root, totalNodes, truncated: false });

/**
 * The relationships graph stays readable at 200 nodes (docs/web-ui.md): every entity gets a box of
 * its own at its natural size (no two overlap, nothing is scaled down), parents left of children.
 */
describe('the relationships graph layout', () => {
  // Three ancestors, then 20 services with 9 workers each: 3 + 1 + 20 + 180 = 204 entities, and one
  // worker also named by a second service (a DAG: the shared worker is drawn once).
  const services = Array.from({ length: 20 }, (_, s) =>
    node(`svc-${String(s)}`, { children: Array.from({ length: 9 }, (_, w) => node(`worker-${String(s)}-${String(w)}`)) }),
  );
  const shared = node('worker-0-0');
  const withShared = services.map((service, index) =>
    index === 1 ? { ...service, children: [...(service.children ?? []), shared] } : service,
  );
  const root = 'edge-network';
  const parents = tree(node(root, { parents: [node('vpc', { parents: [node('region', { parents: [node('account')] })] })] }), 4);
  const children = tree(node(root, { children: withShared }), 201);
  const laid = layoutOf(parents, children);

  it('places every entity once', () => {
    expect(laid.nodes).toHaveLength(204);
    expect(new Set(laid.nodes.map((n) => n.id)).size).toBe(204);
    expect(laid.nodes.filter((n) => n.self).map((n) => n.id)).toEqual([root]);
  });

  it('gives each its own box, none overlapping, all inside the drawing', () => {
    const sorted = [...laid.nodes].sort((a, b) => a.x - b.x || a.y - b.y);
    for (const [index, a] of sorted.entries()) {
      expect(a.x - NODE_WIDTH / 2).toBeGreaterThanOrEqual(0);
      expect(a.y - NODE_HEIGHT / 2).toBeGreaterThanOrEqual(0);
      expect(a.x + NODE_WIDTH / 2).toBeLessThanOrEqual(laid.width);
      expect(a.y + NODE_HEIGHT / 2).toBeLessThanOrEqual(laid.height);
      for (const b of sorted.slice(index + 1)) {
        if (b.x - a.x >= NODE_WIDTH) break;
        expect(Math.abs(a.y - b.y), `${a.id} and ${b.id} overlap`).toBeGreaterThanOrEqual(NODE_HEIGHT);
      }
    }
  });

  it('ranks parents left of their children and draws an edge for each link, the shared worker twice', () => {
    const x = new Map(laid.nodes.map((n) => [n.id, n.x]));
    const at = (id: string) => x.get(id) ?? Number.NaN;
    expect(at('account')).toBeLessThan(at('region'));
    expect(at('vpc')).toBeLessThan(at(root));
    expect(at(root)).toBeLessThan(at('svc-0'));
    expect(at('svc-0')).toBeLessThan(at('worker-0-0'));
    // 3 ancestor links, 20 services, 180 workers, and the shared worker's second parent.
    expect(laid.edges).toHaveLength(204);
    expect(laid.edges.every((edge) => edge.points.length >= 2)).toBe(true);
  });

  it('cuts long names in the box and keeps short ones whole', () => {
    expect(short('orders-db')).toBe('orders-db');
    expect(short('a-very-long-resource-name-for-the-payments-team')).toBe('a-very-long-resource-…');
  });
});
