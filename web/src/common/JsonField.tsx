import { Box, Typography } from '@mui/material';
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
