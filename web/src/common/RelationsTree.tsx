import { Box, Link as MuiLink, Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useRecordContext } from 'react-admin';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { ValueChip } from './StatusChip';
import type { Direction, Tree, TreeNode } from './trees';

// The layout library is loaded only when someone opens the graph.
const RelationsGraph = lazy(async () => ({ default: (await import('./RelationsGraph')).RelationsGraph }));

/** One level of a tree as a nested list: each entity a link with its status. */
function Level({ nodes, direction }: { readonly nodes: readonly TreeNode[]; readonly direction: Direction }) {
  if (nodes.length === 0) return null;
  return (
    <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
      {nodes.map((node, index) => (
        <li key={`${node.id}-${String(index)}`}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', py: 0.25 }}>
            <MuiLink component={Link} to={node.link}>
              {node.name}
            </MuiLink>
            <ValueChip value={node.status} />
          </Stack>
          <Level nodes={node[direction] ?? []} direction={direction} />
        </li>
      ))}
    </Box>
  );
}

/** The entity's relatives one way (GET /api/{plural}/{id}/tree/{direction}), three levels deep. */
function Relatives({ plural, id, direction }: { readonly plural: string; readonly id: string; readonly direction: Direction }) {
  const { data, error } = useQuery({
    queryKey: [plural, 'tree', id, direction],
    queryFn: async ({ signal }) => (await api<Tree>(`/api/${plural}/${id}/tree/${direction}?depth=3`, { signal })).body,
  });
  const heading = direction === 'children' ? 'Children' : 'Parents';
  const nodes = data?.root[direction] ?? [];
  return (
    <Box sx={{ flex: 1, minWidth: 240 }} data-testid={`tree-${direction}`}>
      <Typography variant="subtitle2" component="h3">
        {heading}
        {data ? ` (${String(data.totalNodes - 1)}${data.truncated ? '+' : ''})` : ''}
      </Typography>
      {error && <Typography color="error">Could not be loaded.</Typography>}
      {data && nodes.length === 0 && <Typography color="text.secondary">none</Typography>}
      <Level nodes={nodes} direction={direction} />
    </Box>
  );
}

/**
 * A resource's or template's relationships (docs/contract.md §2): what it names as parents and what
 * names it, as nested lists of links three levels each way, or as a graph of every level.
 */
export function RelationsTree({ plural }: { readonly plural: 'resources' | 'templates' }) {
  const record = useRecordContext<{ id: string }>();
  const [view, setView] = useState<'list' | 'graph'>('list');
  if (!record) return null;
  return (
    <Box component="section" aria-labelledby="relations-heading" sx={{ mt: 3, width: '100%' }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography id="relations-heading" variant="h6" component="h2">
          Relationships
        </Typography>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={view}
          onChange={(_event, next: 'list' | 'graph' | null) => next && setView(next)}
          aria-label="Show relationships as"
        >
          <ToggleButton value="list">List</ToggleButton>
          <ToggleButton value="graph">Graph</ToggleButton>
        </ToggleButtonGroup>
      </Stack>
      {view === 'list' ? (
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={4}>
          <Relatives plural={plural} id={record.id} direction="parents" />
          <Relatives plural={plural} id={record.id} direction="children" />
        </Stack>
      ) : (
        <Suspense fallback={<Typography color="text.secondary">Loading the graph…</Typography>}>
          <RelationsGraph plural={plural} id={record.id} />
        </Suspense>
      )}
    </Box>
  );
}
