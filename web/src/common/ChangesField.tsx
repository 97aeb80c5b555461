import { Box } from '@mui/material';
import { useRecordContext } from 'react-admin';

/** An audit entry's `changes` (secrets already redacted by the service), compact. */
export function ChangesField(_props: { readonly label?: string; readonly sortable?: boolean }) {
  const record = useRecordContext();
  const changes = record?.changes as Record<string, unknown> | undefined;
  if (!changes || Object.keys(changes).length === 0) return null;
  return (
    <Box component="pre" sx={{ m: 0, fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxWidth: 520, maxHeight: 160, overflow: 'auto' }}>
      {JSON.stringify(changes, null, 1)}
    </Box>
  );
}
