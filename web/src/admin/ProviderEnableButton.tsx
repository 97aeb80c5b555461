import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { ConfirmedActionButton } from '../common/ConfirmedActionButton';

const CONFIRM = {
  disable:
    'Its users can no longer sign in through it, and its browser sessions end at their next refresh. The service refuses when it is ' +
    'the last way a super user signs in.',
  enable: 'Users may sign in through it again.',
} as const;

/**
 * Enables or disables an auth provider, after a confirmation (either way changes who may sign in).
 * The service refuses to disable the last way a super user signs in; that refusal is shown as it comes.
 */
export function ProviderEnableButton() {
  const record = useRecordContext();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  if (!record) return null;
  const action = record.enabled === true ? 'disable' : 'enable';
  const label = action === 'disable' ? 'Disable' : 'Enable';
  return (
    <ConfirmedActionButton
      label={label}
      icon={<PowerSettingsNewIcon />}
      color={action === 'disable' ? 'warning' : 'primary'}
      title={`${label} ${String(record.name)}?`}
      content={CONFIRM[action]}
      run={() => dataProvider.action('auth_providers', record.id, action, {})}
      done={`Provider ${String(record.name)} ${action}d`}
    />
  );
}
