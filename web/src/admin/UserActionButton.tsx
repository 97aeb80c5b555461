import { Button, Confirm, useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { useState, type ReactElement } from 'react';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';

/** A user action (deactivate, reactivate, revoke_sessions) behind a confirmation; refusals are shown. */
export function UserActionButton({ action, label, confirm, icon }: { readonly action: 'deactivate' | 'reactivate' | 'revoke_sessions'; readonly label: string; readonly confirm: string; readonly icon?: ReactElement }) {
  const record = useRecordContext();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  return (
    <>
      <Button label={label} disabled={busy} onClick={() => setOpen(true)} color={action === 'reactivate' ? 'primary' : 'warning'}>
        {icon}
      </Button>
      <Confirm
        isOpen={open}
        loading={busy}
        title={`${label}: ${String(record.name)}`}
        content={confirm}
        onClose={() => setOpen(false)}
        onConfirm={() => {
          setBusy(true);
          dataProvider
            .action('users', record.id, action, {})
            .then(() => {
              notify(`${label}: done`, { type: 'success' });
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
