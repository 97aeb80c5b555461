import { Box, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { layoutOf, NODE_HEIGHT, NODE_WIDTH, pathOf, short } from './graphLayout';
import type { Direction, Tree } from './trees';

/** How far the graph reaches each way (the API cuts a tree at 1,000 nodes and says so). */
const DEPTH = 10;

/**
 * A resource's or template's relationships as a graph (docs/web-ui.md): every parent and child up to
 * ten levels, laid out by a layered graph layout (graphLayout.ts), at its natural size in a scrolling box so
 * that 200 nodes stay readable; each node a link to its entity, reachable by keyboard.
 */
export function RelationsGraph({ plural, id }: { readonly plural: 'resources' | 'templates'; readonly id: string }) {
  const navigate = useNavigate();
  const fetchTree =
    (direction: Direction) =>
    async ({ signal }: { signal: AbortSignal }) =>
      (await api<Tree>(`/api/${plural}/${id}/tree/${direction}?depth=${String(DEPTH)}`, { signal })).body;
  const parents = useQuery({ queryKey: [plural, 'tree', id, 'parents', DEPTH], queryFn: fetchTree('parents') });
  const children = useQuery({ queryKey: [plural, 'tree', id, 'children', DEPTH], queryFn: fetchTree('children') });
  const laid = useMemo(
    () => (parents.data && children.data ? layoutOf(parents.data, children.data) : undefined),
    [parents.data, children.data],
  );
  if (parents.error || children.error) return <Typography color="error">The graph could not be loaded.</Typography>;
  if (!laid) return <Typography color="text.secondary">Laying out the graph…</Typography>;
  const truncated = parents.data?.truncated === true || children.data?.truncated === true;
  return (
    <Box>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {`${String(laid.nodes.length)} entities, parents on the left, children on the right${truncated ? ' (cut at 1,000 each way)' : ''}.`}
      </Typography>
      <Box sx={{ overflow: 'auto', maxHeight: 640, border: 1, borderColor: 'divider', borderRadius: 1 }}>
        <svg
          role="img"
          aria-label={`Relationships graph of ${String(laid.nodes.length)} entities`}
          data-testid="relations-graph"
          width={laid.width}
          height={laid.height}
          viewBox={`0 0 ${String(laid.width)} ${String(laid.height)}`}
        >
          <defs>
            <marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" fill="#757575" />
            </marker>
          </defs>
          {laid.edges.map((edge) => (
            <path key={edge.key} d={pathOf(edge.points)} fill="none" stroke="#9e9e9e" strokeWidth={1.2} markerEnd="url(#graph-arrow)" />
          ))}
          {laid.nodes.map((node) => (
            <a
              key={node.id}
              href={node.link}
              role="link"
              aria-label={`${node.name} (${node.status.replaceAll('_', ' ')})`}
              data-node={node.name}
              onClick={(event) => {
                event.preventDefault();
                void navigate(node.link);
              }}
            >
              <title>{`${node.name} · ${node.status.replaceAll('_', ' ')}`}</title>
              <rect
                x={node.x - NODE_WIDTH / 2}
                y={node.y - NODE_HEIGHT / 2}
                width={NODE_WIDTH}
                height={NODE_HEIGHT}
                rx={6}
                fill={node.self ? '#e3f2fd' : '#ffffff'}
                stroke={node.self ? '#1565c0' : '#9e9e9e'}
                strokeWidth={node.self ? 2 : 1}
              />
              <text x={node.x} y={node.y - 3} textAnchor="middle" fontSize={13} fill="#0d47a1" fontFamily="inherit">
                {short(node.name)}
              </text>
              <text x={node.x} y={node.y + 13} textAnchor="middle" fontSize={11} fill="#424242" fontFamily="inherit">
                {node.status.replaceAll('_', ' ')}
              </text>
            </a>
          ))}
        </svg>
      </Box>
    </Box>
  );
}
