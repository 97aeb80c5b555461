import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DeleteIcon from '@mui/icons-material/Delete';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import StopIcon from '@mui/icons-material/Stop';
import ReplayIcon from '@mui/icons-material/Replay';
import RemoveCircleIcon from '@mui/icons-material/RemoveCircle';
import { Stack, Typography } from '@mui/material';
import { useState, type ReactElement } from 'react';
import {
  Button,
  Confirm,
  useDataProvider,
  useGetIdentity,
  useNotify,
  usePermissions,
  useRecordContext,
  useRedirect,
  useRefresh,
  useResourceContext,
} from 'react-admin';
import type { InfraledgerDataProvider } from '../api/dataProvider';
import { DecisionDialog, type Decision } from '../approvals/DecisionDialog';
import { allows, PERMISSION_OF } from '../api/permissions';
import { messageOf } from '../api/problem';
import { useEntityAccess } from '../api/access';
import { ACTION_LABELS, ACTOR, isAllowed, type LifecycleAction } from './lifecycle';

const ICONS: Readonly<Record<LifecycleAction, ReactElement>> = {
  approve: <CheckIcon />,
  reject: <CloseIcon />,
  execute: <PlayArrowIcon />,
  cancel: <StopIcon />,
  destroy: <RemoveCircleIcon />,
  recreate: <ReplayIcon />,
  delete: <DeleteIcon />,
};

const CONFIRM: Partial<Record<LifecycleAction, string>> = {
  execute: 'Queue a run now? The runner applies the approved source code version with these variables to real infrastructure.',
  cancel: 'Call off the queued run? Nothing has run yet; the resource is ready to execute again.',
  destroy: 'Request the destruction of this infrastructure? With the approval flow on, it waits for approval first.',
  delete: 'Delete this entry from the catalog? Its history stays in the audit log.',
};

/** Approve and reject ask for a reason (optional) in their own dialog. */
const isDecision = (action: LifecycleAction): action is Decision => action === 'approve' || action === 'reject';

/**
 * The lifecycle actions the caller may take now, as buttons (approve/reject for resources; execute,
 * destroy, recreate, delete). What the service refuses is shown as it says it.
 */
export function LifecycleActions({ approvals }: { readonly approvals: boolean }) {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const { permissions } = usePermissions<readonly string[]>();
  const { identity } = useGetIdentity();
  const dataProvider = useDataProvider<InfraledgerDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const redirect = useRedirect();
  const [busy, setBusy] = useState<LifecycleAction>();
  const [confirming, setConfirming] = useState<LifecycleAction>();
  const access = useEntityAccess(resource, record?.id);
  if (!record) return null;
  const state = String(record.state ?? '');
  const status = String(record.status ?? '');
  const writer = allows(permissions, PERMISSION_OF[resource] ?? resource, 'write');
  const owner = writer || (resource === 'resources' && identity !== undefined && record.creatorId === identity.id);
  // The service says which actions would work for this caller now (teams, grants, approvers by the
  // template's owner); until it has answered, the roles decide as before.
  const offered = (a: LifecycleAction): boolean =>
    access ? access.availableActions.includes(a) : ACTOR[a] === 'approver' ? writer : owner;
  const actions = (Object.keys(ACTION_LABELS) as LifecycleAction[]).filter((a) => isAllowed(a, state, status, approvals) && offered(a));

  const run = (action: LifecycleAction, reason = '') => {
    setBusy(action);
    const done =
      action === 'delete'
        ? dataProvider.delete(resource, { id: record.id, previousData: record }).then(() => {
            notify(`${String(record.name ?? 'Entry')} deleted`, { type: 'success' });
            redirect('list', resource);
          })
        : dataProvider.action(resource, record.id, action, reason === '' ? {} : { reason }).then(({ data }) => {
            notify(`${ACTION_LABELS[action]}: now ${String(data.state)} / ${String(data.status).replaceAll('_', ' ')}`, {
              type: 'success',
            });
            refresh();
          });
    done
      .catch((error: unknown) => {
        notify(messageOf(error), { type: 'error', autoHideDuration: 10_000 });
        refresh();
      })
      .finally(() => {
        setBusy(undefined);
        setConfirming(undefined);
      });
  };

  if (actions.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" data-testid="lifecycle-actions">
        No action available to you in this state.
      </Typography>
    );
  return (
    <Stack direction="row" spacing={1} useFlexGap data-testid="lifecycle-actions" sx={{ flexWrap: 'wrap' }}>
      {actions.map((action) => (
        <Button
          key={action}
          label={ACTION_LABELS[action]}
          variant={action === 'approve' || action === 'execute' ? 'contained' : 'outlined'}
          color={action === 'delete' || action === 'destroy' || action === 'reject' ? 'error' : 'primary'}
          disabled={busy !== undefined}
          onClick={() => (CONFIRM[action] || isDecision(action) ? setConfirming(action) : run(action))}
        >
          {ICONS[action]}
        </Button>
      ))}
      <DecisionDialog
        decision={confirming && isDecision(confirming) ? confirming : undefined}
        name={String(record.name ?? '')}
        busy={busy !== undefined}
        onClose={() => setConfirming(undefined)}
        onConfirm={(reason) => confirming && run(confirming, reason)}
      />
      <Confirm
        isOpen={confirming !== undefined && !isDecision(confirming)}
        loading={busy !== undefined}
        title={confirming ? `${ACTION_LABELS[confirming]} ${String(record.name ?? '')}?` : ''}
        content={confirming ? (CONFIRM[confirming] ?? '') : ''}
        onClose={() => setConfirming(undefined)}
        onConfirm={() => confirming && run(confirming)}
      />
    </Stack>
  );
}
