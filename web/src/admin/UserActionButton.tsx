import type { ReactElement } from 'react';
import { useDataProvider, useRecordContext } from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { ConfirmedActionButton } from '../common/ConfirmedActionButton';

/** A user action (deactivate, reactivate, revoke_sessions) behind a confirmation; refusals are shown. */
export function UserActionButton({
  action,
  label,
  confirm,
  icon,
}: {
  readonly action: 'deactivate' | 'reactivate' | 'revoke_sessions';
  readonly label: string;
  readonly confirm: string;
  readonly icon?: ReactElement;
}) {
  const record = useRecordContext();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  if (!record) return null;
  return (
    <ConfirmedActionButton
      label={label}
      icon={icon}
      color={action === 'reactivate' ? 'primary' : 'warning'}
      title={`${label}: ${String(record.name)}`}
      content={confirm}
      run={() => dataProvider.action('users', record.id, action, {})}
      done={`${label}: done`}
    />
  );
}
