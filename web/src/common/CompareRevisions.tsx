import { useEffect, useState } from 'react';
import { Alert, Box, MenuItem, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useRecordContext, useResourceContext } from 'react-admin';
import { api } from '../api/client';
import { messageOf } from '../api/problem';

interface FieldChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

interface RevisionDiff {
  readonly changes: readonly FieldChange[];
}

/** A value as the table shows it: none (null, empty) as a dash, text as it is, anything else as JSON. */
const shown = (value: unknown): string =>
  value === null || value === undefined || value === '' ? '—' : typeof value === 'string' ? value : JSON.stringify(value, null, 1);

/**
 * Two revisions of the entity side by side (GET /api/{plural}/{id}/diff, docs/contract.md "History
 * you can query"): pick any two, see each field that differs as it was in each.
 */
export function CompareRevisions() {
  const record = useRecordContext<{ id: string; revision: number }>();
  const resource = useResourceContext() ?? '';
  const latest = record?.revision ?? 1;
  const [from, setFrom] = useState(Math.max(1, latest - 1));
  const [to, setTo] = useState(latest);
  const [diff, setDiff] = useState<RevisionDiff | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    setTo(latest);
    setFrom(Math.max(1, latest - 1));
  }, [latest]);

  useEffect(() => {
    if (!record || latest < 2) return;
    const controller = new AbortController();
    setError(undefined);
    api<RevisionDiff>(`/api/${resource}/${record.id}/diff?from=${from}&to=${to}`, { signal: controller.signal })
      .then((answer) => setDiff(answer.body))
      .catch((failure: unknown) => {
        if (!controller.signal.aborted) setError(messageOf(failure));
      });
    return () => controller.abort();
  }, [record, resource, from, to, latest]);

  if (!record || latest < 2) return null;
  const revisions = Array.from({ length: latest }, (_, i) => i + 1);
  const picker = (label: string, value: number, set: (n: number) => void) => (
    <TextField select size="small" label={label} value={value} onChange={(event) => set(Number(event.target.value))} sx={{ minWidth: 160 }}>
      {revisions.map((n) => (
        <MenuItem key={n} value={n}>
          Revision {n}
          {n === latest ? ' (now)' : ''}
        </MenuItem>
      ))}
    </TextField>
  );

  return (
    <Box component="section" aria-labelledby="compare-heading" sx={{ mt: 3, width: '100%' }}>
      <Typography id="compare-heading" variant="h6" component="h2" gutterBottom>
        Compare revisions
      </Typography>
      <Stack direction="row" spacing={2} sx={{ mb: 2 }}>
        {picker('From revision', from, setFrom)}
        {picker('To revision', to, setTo)}
      </Stack>
      {error && <Alert severity="error">{error}</Alert>}
      {!error && diff && diff.changes.length === 0 && <Typography color="text.secondary">No differences.</Typography>}
      {!error && diff && diff.changes.length > 0 && (
        <Table size="small" aria-label={`Revision ${from} and revision ${to} side by side`} data-testid="revision-diff">
          <TableHead>
            <TableRow>
              <TableCell component="th" scope="col">
                Field
              </TableCell>
              <TableCell component="th" scope="col">
                Revision {from}
              </TableCell>
              <TableCell component="th" scope="col">
                Revision {to}
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {diff.changes.map((change) => (
              <TableRow key={change.field}>
                <TableCell component="th" scope="row">
                  {change.field}
                </TableCell>
                <TableCell sx={{ whiteSpace: 'pre-wrap', fontFamily: 'monospace' }}>{shown(change.before)}</TableCell>
                <TableCell sx={{ whiteSpace: 'pre-wrap', fontFamily: 'monospace' }}>{shown(change.after)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}
