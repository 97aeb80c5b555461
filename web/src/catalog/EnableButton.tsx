import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { useCanAccess, useDataProvider, useRecordContext, useResourceContext } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { ConfirmedActionButton } from '../common/ConfirmedActionButton';

/**
 * Enables or disables a catalog entity (`enabled` ⇄ `disabled`), for those who may write it.
 * Disabling asks first: nothing new may then reference the entity.
 */
export function EnableButton() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const { canAccess } = useCanAccess({ resource, action: 'edit', record });
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  if (!record || !canAccess || (record.status !== 'enabled' && record.status !== 'disabled')) return null;
  const action = record.status === 'enabled' ? 'disable' : 'enable';
  return (
    <ConfirmedActionButton
      label={action === 'enable' ? 'Enable' : 'Disable'}
      icon={<PowerSettingsNewIcon />}
      ask={action === 'disable'}
      title={`Disable ${String(record.name ?? record.identifier ?? '')}?`}
      content="Nothing new may reference it while it is disabled; what references it now keeps working."
      run={() => dataProvider.action(resource, record.id, action, {})}
      done={action === 'enable' ? 'Enabled' : 'Disabled'}
    />
  );
}
