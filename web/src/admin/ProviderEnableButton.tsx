import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { Button, Confirm, useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { useState } from 'react';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';

const CONFIRM = {
  disable: "Its users can no longer sign in through it, and its browser sessions end at their next refresh. The service refuses when it is the last way a super user signs in.",
  enable: 'Users may sign in through it again.',
} as const;

/**
 * Enables or disables an auth provider, after a confirmation (either way changes who may sign in).
 * The service refuses to disable the last way a super user signs in; that refusal is shown as it comes.
 */
export function ProviderEnableButton() {
  const record = useRecordContext();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  if (!record) return null;
  const enabled = record.enabled === true;
  const action = enabled ? 'disable' : 'enable';
  const label = enabled ? 'Disable' : 'Enable';
  return (
    <>
      <Button
        label={label}
        disabled={busy}
        color={enabled ? 'warning' : 'primary'}
        onClick={(event) => {
          event.stopPropagation();
          setOpen(true);
        }}
      >
        <PowerSettingsNewIcon />
      </Button>
      <Confirm
        isOpen={open}
        loading={busy}
        title={`${label} ${String(record.name)}?`}
        content={CONFIRM[action]}
        confirm={label}
        onClose={() => setOpen(false)}
        onConfirm={() => {
          setBusy(true);
          dataProvider
            .action('auth_providers', record.id, action, {})
            .then(() => {
              notify(`Provider ${String(record.name)} ${action}d`, { type: 'success' });
              refresh();
            })
            .catch((error: unknown) => notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 }))
            .finally(() => {
              setBusy(false);
              setOpen(false);
            });
        }}
      />
    </>
  );
}
