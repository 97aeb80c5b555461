import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Box,
  Button,
  FormControlLabel,
  Paper,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { RecordContextProvider, useRecordContext } from 'react-admin';
import { api } from '../api/client';
import { messageOf } from '../api/problem';
import { useRunLogTail } from '../api/runLog';
import { ActorField } from '../common/ActorField';
import { ValueChip } from '../common/StatusChip';

/** One run as the REST API shows it. */
interface Run {
  readonly id: string;
  readonly action: string;
  readonly status: string;
  readonly actorId: string | null;
  readonly queuedAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly error: string | null;
}

const when = (at: string | null): string => (at ? new Date(at).toLocaleString() : '—');

/** A chunk's lines, each prefixed with the time the runner sent the chunk (`[14:03:07] `). */
function stamped(content: string, at: string): string {
  const time = `[${new Date(at).toLocaleTimeString([], { hour12: false })}] `;
  // The chunk's last line break ends its last line: no stamp after it.
  return content.replace(/^(?=.)/gm, time);
}

/** A run's log: replayed, then live while the run goes on (secrets arrive masked). */
function RunLog({ resourceId, run }: { readonly resourceId: string; readonly run: Run }) {
  const { chunks, complete, error } = useRunLogTail(resourceId, run.id);
  const end = useRef<HTMLPreElement>(null);
  const queryClient = useQueryClient();
  // Follow the tail as lines arrive.
  useEffect(() => {
    const pre = end.current;
    if (pre) pre.scrollTop = pre.scrollHeight;
  }, [chunks.length]);
  // The run ended: its status and times changed.
  useEffect(() => {
    if (complete) void queryClient.invalidateQueries({ queryKey: ['resources'] });
  }, [complete, queryClient]);
  const [showTimes, setShowTimes] = useState(false);
  const text = chunks.map((chunk) => chunk.content).join('');
  const shown = showTimes ? chunks.map((chunk) => stamped(chunk.content, chunk.at)).join('') : text;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `run-${run.id}.log`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Box>
      <Stack direction="row" spacing={2} sx={{ mb: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="subtitle2" component="h3">
          Log of the {run.action} run queued {when(run.queuedAt)}{' '}
          {complete ? '(complete)' : run.status === 'queued' || run.status === 'in_progress' ? '(live)' : ''}
        </Typography>
        <FormControlLabel
          control={<Switch size="small" checked={showTimes} onChange={(event) => setShowTimes(event.target.checked)} />}
          label="Show times"
        />
        <Button size="small" startIcon={<DownloadIcon />} onClick={download} disabled={text === ''}>
          Download
        </Button>
      </Stack>
      {error && !complete && <Alert severity="warning">The live log stopped: {error}</Alert>}
      <Box
        component="pre"
        ref={end}
        role="log"
        aria-live="polite"
        aria-label={`Log of run ${run.id}`}
        tabIndex={0}
        data-testid="run-log"
        sx={{
          m: 0,
          p: 1.5,
          maxHeight: 360,
          overflow: 'auto',
          bgcolor: 'grey.900',
          color: 'grey.100',
          fontSize: 12,
          borderRadius: 1,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-all',
        }}
      >
        {text === '' ? (complete ? 'This run logged nothing.' : 'Waiting for output…') : shown}
      </Box>
    </Box>
  );
}

/**
 * A resource's runs (docs/contract.md §2, "Runs"), newest first, each with its actor, times and
 * error; the chosen run's log (the newest by default) is tailed live. The list refetches with every
 * change of the resource (the live updates mark `resources` queries stale).
 */
export function Runs() {
  const record = useRecordContext();
  const resourceId = record?.id === undefined ? undefined : String(record.id);
  const [chosen, choose] = useState<string | undefined>(undefined);
  const { data: runs, error } = useQuery({
    queryKey: ['resources', 'runs', resourceId],
    queryFn: async ({ signal }) =>
      (await api<Run[]>(`/api/resources/${encodeURIComponent(resourceId ?? '')}/runs?range=${encodeURIComponent('[0,20]')}`, { signal }))
        .body,
    enabled: resourceId !== undefined,
  });
  if (!resourceId) return null;
  const shown = runs?.find((run) => run.id === chosen) ?? runs?.[0];
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} component="section" aria-label="Runs">
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        Runs
      </Typography>
      {error && <Alert severity="error">{messageOf(error)}</Alert>}
      {runs?.length === 0 && <Typography color="text.secondary">No run yet: executing the resource queues one.</Typography>}
      {runs && runs.length > 0 && (
        <Stack spacing={2}>
          <Box sx={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Run list">
            <Table size="small" data-testid="runs">
              <TableHead>
                <TableRow>
                  <TableCell>Action</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>By</TableCell>
                  <TableCell>Queued</TableCell>
                  <TableCell>Started</TableCell>
                  <TableCell>Finished</TableCell>
                  <TableCell>Error</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {runs.map((run) => (
                  <TableRow
                    key={run.id}
                    hover
                    selected={run.id === shown?.id}
                    onClick={() => choose(run.id)}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' || event.key === ' ') choose(run.id);
                    }}
                    tabIndex={0}
                    aria-selected={run.id === shown?.id}
                    sx={{ cursor: 'pointer' }}
                    data-run-id={run.id}
                  >
                    <TableCell>{run.action}</TableCell>
                    <TableCell>
                      <ValueChip value={run.status} />
                    </TableCell>
                    <TableCell>
                      <RecordContextProvider value={{ ...run }}>
                        <ActorField source="actorId" />
                      </RecordContextProvider>
                    </TableCell>
                    <TableCell>{when(run.queuedAt)}</TableCell>
                    <TableCell>{when(run.startedAt)}</TableCell>
                    <TableCell>{when(run.finishedAt)}</TableCell>
                    <TableCell>{run.error ?? '—'}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
          {shown && <RunLog key={shown.id} resourceId={resourceId} run={shown} />}
        </Stack>
      )}
    </Paper>
  );
}
