import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { useState } from 'react';
import { Button, useCanAccess, useDataProvider, useNotify, useRecordContext, useRefresh, useResourceContext } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';

/** Enables or disables a catalog entity (`enabled` ⇄ `disabled`), for those who may write it. */
export function EnableButton() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const { canAccess } = useCanAccess({ resource, action: 'edit', record });
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  if (!record || !canAccess || (record.status !== 'enabled' && record.status !== 'disabled')) return null;
  const action = record.status === 'enabled' ? 'disable' : 'enable';
  return (
    <Button
      label={action === 'enable' ? 'Enable' : 'Disable'}
      disabled={busy}
      onClick={() => {
        setBusy(true);
        dataProvider
          .action(resource, record.id, action, {})
          .then(() => {
            notify(action === 'enable' ? 'Enabled' : 'Disabled', { type: 'success' });
            refresh();
          })
          .catch((error: unknown) => notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 }))
          .finally(() => setBusy(false));
      }}
    >
      <PowerSettingsNewIcon />
    </Button>
  );
}
