import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { Stack } from '@mui/material';
import { useState } from 'react';
import { Button, useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';
import { DecisionDialog, type Decision } from './DecisionDialog';

/** Sends a decision with its reason (none when left blank): POST /api/resources/{id}/actions/{approve|reject}. */
export function useDecide() {
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  return (id: string, name: string, decision: Decision, reason: string): Promise<void> =>
    dataProvider
      .action('resources', id, decision, reason === '' ? {} : { reason })
      .then(() => notify(`${name} ${decision === 'approve' ? 'approved' : 'rejected'}`, { type: 'success' }))
      .catch((error: unknown) => notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 }))
      .finally(refresh);
}

/** Approve and reject for the resource in context, each asking for confirmation and a reason. */
export function DecisionButtons() {
  const record = useRecordContext();
  const decide = useDecide();
  const [decision, setDecision] = useState<Decision>();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const name = String(record.name ?? '');
  return (
    <Stack direction="row" spacing={1}>
      <Button label="Approve" variant="contained" onClick={() => setDecision('approve')} disabled={busy}>
        <CheckIcon />
      </Button>
      <Button label="Reject" variant="outlined" color="error" onClick={() => setDecision('reject')} disabled={busy}>
        <CloseIcon />
      </Button>
      <DecisionDialog
        decision={decision}
        name={name}
        busy={busy}
        onClose={() => setDecision(undefined)}
        onConfirm={(reason) => {
          if (!decision) return;
          setBusy(true);
          void decide(String(record.id), name, decision, reason).finally(() => {
            setBusy(false);
            setDecision(undefined);
          });
        }}
      />
    </Stack>
  );
}
