import { Chip } from '@mui/material';
import { useRecordContext } from 'react-admin';

const COLOURS: Readonly<Record<string, 'default' | 'success' | 'warning' | 'error' | 'info' | 'primary'>> = {
  enabled: 'success',
  disabled: 'default',
  approval_pending: 'warning',
  rejected: 'error',
  ready: 'info',
  queued: 'info',
  in_progress: 'primary',
  done: 'success',
  error: 'error',
  provision: 'default',
  provisioned: 'success',
  destroy: 'warning',
  destroyed: 'default',
  succeeded: 'success',
  failed: 'error',
  cancelled: 'default',
};

/** A state or status value as a coloured chip. */
export function ValueChip({ value }: { readonly value: string | undefined }) {
  if (!value) return null;
  return <Chip size="small" label={value.replaceAll('_', ' ')} color={COLOURS[value] ?? 'default'} data-value={value} />;
}

/** The record's `source` field (status, state) as a chip. */
export function StatusChip({ source = 'status' }: { readonly source?: string; readonly label?: string; readonly sortable?: boolean }) {
  const record = useRecordContext();
  const value = record?.[source] as unknown;
  return <ValueChip value={typeof value === 'string' ? value : undefined} />;
}
