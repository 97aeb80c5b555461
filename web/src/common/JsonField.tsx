import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';

/** A JSON value, pretty-printed; "none" for an empty object or list. */
export function JsonValue({ value }: { readonly value: unknown }) {
  const empty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);
  if (empty)
    return (
      <Typography variant="body2" color="text.secondary">
        none
      </Typography>
    );
  return (
    <Box component="pre" sx={{ m: 0, p: 1, bgcolor: 'grey.100', borderRadius: 1, fontSize: 13, overflowX: 'auto', maxWidth: 900 }}>
      {JSON.stringify(value, null, 2)}
    </Box>
  );
}

/** A record's JSON field (configuration, outputs, variables). */
export function JsonField({ source }: { readonly source: string; readonly label?: string }) {
  const record = useRecordContext();
  const value: unknown = record?.[source];
  return <JsonValue value={value} />;
}

/** A value in a table cell: text as it is, anything else as compact JSON. */
const cellText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Names and values as a table (a resource's variables, a run's outputs): `entries` is a list of
 * `{name, value, sensitive?}` or an object of values by name; "none" when empty.
 */
export function NameValueTable({ value, label }: { readonly value: unknown; readonly label: string }) {
  const rows: { name: string; value: unknown; sensitive?: boolean }[] = Array.isArray(value)
    ? (value as { name: string; value: unknown; sensitive?: boolean }[])
    : typeof value === 'object' && value !== null
      ? Object.entries(value as Record<string, unknown>).map(([name, entry]) => ({ name, value: entry }))
      : [];
  if (rows.length === 0)
    return (
      <Typography variant="body2" color="text.secondary">
        none
      </Typography>
    );
  return (
    <Table size="small" aria-label={label} sx={{ maxWidth: 900 }}>
      <TableHead>
        <TableRow>
          <TableCell component="th" scope="col">
            Name
          </TableCell>
          <TableCell component="th" scope="col">
            Value
          </TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.name}>
            <TableCell component="th" scope="row" sx={{ fontFamily: 'monospace' }}>
              {row.name}
            </TableCell>
            <TableCell sx={{ fontFamily: 'monospace', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {cellText(row.value)}
              {row.sensitive ? ' (sensitive)' : ''}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** A record's name/value field (`variables`, `outputs`) as a table. */
export function NameValueField({ source, label }: { readonly source: string; readonly label: string }) {
  const record = useRecordContext();
  const value: unknown = record?.[source];
  return <NameValueTable value={value} label={label} />;
}
