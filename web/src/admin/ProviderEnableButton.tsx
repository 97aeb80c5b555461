import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { Button, useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { useState } from 'react';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { messageOf } from '../api/problem';

/**
 * Enables or disables an auth provider. The service refuses to disable the last way a super user
 * signs in; that refusal is shown as it comes.
 */
export function ProviderEnableButton() {
  const record = useRecordContext();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const enabled = record.enabled === true;
  const action = enabled ? 'disable' : 'enable';
  return (
    <Button
      label={enabled ? 'Disable' : 'Enable'}
      disabled={busy}
      color={enabled ? 'warning' : 'primary'}
      onClick={(event) => {
        event.stopPropagation();
        setBusy(true);
        dataProvider
          .action('auth_providers', record.id, action, {})
          .then(() => {
            notify(`Provider ${String(record.name)} ${action}d`, { type: 'success' });
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
