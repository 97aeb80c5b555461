import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, TextField } from '@mui/material';
import { useEffect, useId, useState } from 'react';

/** An approver's decision on a request. */
export type Decision = 'approve' | 'reject';

const WORDS: Readonly<Record<Decision, { readonly title: string; readonly text: string; readonly button: string }>> = {
  approve: { title: 'Approve', text: 'The requester may then execute it.', button: 'Approve' },
  reject: {
    title: 'Reject',
    text: 'The requester sees the reason in the history and may change the request and ask again.',
    button: 'Reject',
  },
};

/** The longest reason the service keeps (src/edge/writes/catalog.ts, decisionBody). */
export const MAX_REASON = 2000;

/**
 * Confirms an approval or rejection and asks why (optional; kept in the event and shown in the
 * history). Enter in the reason field does not submit, so a multi-line reason is possible.
 */
export function DecisionDialog({
  decision,
  name,
  busy,
  onClose,
  onConfirm,
}: {
  readonly decision: Decision | undefined;
  readonly name: string;
  readonly busy: boolean;
  readonly onClose: () => void;
  readonly onConfirm: (reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  const titleId = useId();
  useEffect(() => {
    if (decision) setReason('');
  }, [decision]);
  const words = WORDS[decision ?? 'approve'];
  return (
    <Dialog open={decision !== undefined} onClose={busy ? undefined : onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>{`${words.title} ${name}?`}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{words.text}</DialogContentText>
        <TextField
          label="Reason (optional)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          multiline
          minRows={2}
          fullWidth
          autoFocus
          slotProps={{ htmlInput: { maxLength: MAX_REASON } }}
          helperText="Kept with the decision and shown in the history."
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          onClick={() => onConfirm(reason.trim())}
          disabled={busy}
          variant="contained"
          color={decision === 'reject' ? 'error' : 'primary'}
        >
          {words.button}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
