import { Alert, Box, Paper, Stack, Typography } from '@mui/material';
import { useGetList, useRecordContext } from 'react-admin';
import { ValueChip } from '../common/StatusChip';
import { LifecycleActions } from './LifecycleActions';

/** Why a request was rejected: the latest `rejected` entry of its history, with who decided and their reason. */
function RejectionReason({ id }: { readonly id: string }) {
  const { data } = useGetList<{ id: string; actorName: string | null; reason: string | null }>('audit_log', {
    filter: { entityId: id, verb: 'rejected' },
    sort: { field: 'at', order: 'DESC' },
    pagination: { page: 1, perPage: 1 },
  });
  const decision = data?.[0];
  if (!decision) return null;
  return (
    <Alert severity="warning" sx={{ mt: 2 }} data-testid="rejection">
      Rejected{decision.actorName ? ` by ${decision.actorName}` : ''}
      {decision.reason ? `: ${decision.reason}` : ' (no reason given)'}
    </Alert>
  );
}

/** State, status, the last error or rejection and the actions available now: the top of a lifecycle entity's page. */
export function LifecycleSummary({ approvals }: { readonly approvals: boolean }) {
  const record = useRecordContext();
  if (!record) return null;
  const lastError = typeof record.lastError === 'string' && record.lastError !== '' ? record.lastError : undefined;
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} component="section" aria-label="Lifecycle">
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={3} sx={{ alignItems: { md: 'center' } }}>
        <Box>
          <Typography variant="caption" color="text.secondary" component="p">
            State
          </Typography>
          <span data-testid="state">
            <ValueChip value={String(record.state ?? '')} />
          </span>
        </Box>
        <Box>
          <Typography variant="caption" color="text.secondary" component="p">
            Status
          </Typography>
          <span data-testid="status">
            <ValueChip value={String(record.status ?? '')} />
          </span>
        </Box>
        <Box sx={{ flex: 1 }}>
          <LifecycleActions approvals={approvals} />
        </Box>
      </Stack>
      {approvals && record.status === 'rejected' && <RejectionReason id={String(record.id)} />}
      {lastError && record.status === 'error' && (
        <Alert severity="error" sx={{ mt: 2 }}>
          Last run failed: {lastError}
        </Alert>
      )}
    </Paper>
  );
}
