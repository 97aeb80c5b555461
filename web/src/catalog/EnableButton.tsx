import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { useState } from 'react';
import { Button, Confirm, useCanAccess, useDataProvider, useNotify, useRecordContext, useRefresh, useResourceContext } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';

/**
 * Enables or disables a catalog entity (`enabled` ⇄ `disabled`), for those who may write it.
 * Disabling asks first: nothing new may then reference the entity.
 */
export function EnableButton() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const { canAccess } = useCanAccess({ resource, action: 'edit', record });
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  if (!record || !canAccess || (record.status !== 'enabled' && record.status !== 'disabled')) return null;
  const action = record.status === 'enabled' ? 'disable' : 'enable';
  const run = () => {
    setBusy(true);
    dataProvider
      .action(resource, record.id, action, {})
      .then(() => {
        notify(action === 'enable' ? 'Enabled' : 'Disabled', { type: 'success' });
        refresh();
      })
      .catch((error: unknown) => notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 }))
      .finally(() => {
        setBusy(false);
        setConfirming(false);
      });
  };
  return (
    <>
      <Button label={action === 'enable' ? 'Enable' : 'Disable'} disabled={busy} onClick={() => (action === 'disable' ? setConfirming(true) : run())}>
        <PowerSettingsNewIcon />
      </Button>
      <Confirm
        isOpen={confirming}
        loading={busy}
        title={`Disable ${String(record.name ?? record.identifier ?? '')}?`}
        content="Nothing new may reference it while it is disabled; what references it now keeps working."
        confirm="Disable"
        onClose={() => setConfirming(false)}
        onConfirm={run}
      />
    </>
  );
}
