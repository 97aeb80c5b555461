import { Link as MuiLink, Typography } from '@mui/material';
import { Datagrid, DateField, FunctionField, List, Title } from 'react-admin';
import { Link } from 'react-router-dom';
import { decidesRequests, useMe } from '../api/me';
import { ActorField } from '../common/ActorField';
import { RefField } from '../catalog/common';
import { ChangesSinceApproval } from './ChangesSinceApproval';
import { DecisionButtons } from './DecisionButtons';

/**
 * What a pending request asks for: a new resource (or a change to one not yet running), a change to
 * a provisioned one (what it deploys changed after approval), or the destruction of a provisioned one.
 */
const REQUEST: Readonly<Record<string, string>> = { provision: 'create', provisioned: 'change', destroy: 'destroy' };

/** What the request asks to set: each variable as `name = value` (sensitive ones stay `********`). */
function RequestedVariables({ variables }: { readonly variables: unknown }) {
  const list = Array.isArray(variables) ? (variables as { name: string; value: unknown }[]) : [];
  if (list.length === 0) return <Typography variant="body2">—</Typography>;
  return (
    <Typography component="ul" variant="body2" sx={{ m: 0, pl: 2, fontFamily: 'monospace' }}>
      {list.map((variable) => (
        <li key={variable.name}>
          {variable.name} = {typeof variable.value === 'string' ? variable.value : JSON.stringify(variable.value)}
        </li>
      ))}
    </Typography>
  );
}

/**
 * "Waiting for my approval" (`/approvals`, `GET /api/approvals`): every resource request the caller
 * may decide now — those of the templates their teams own, for a team's leads; those of templates no
 * team owns, for `resource:write` — the longest-waiting first, with approve and reject (and a reason)
 * on each row. Kept live like every list: a new request appears, a decided one leaves.
 */
export function ApprovalQueue() {
  const me = useMe();
  if (me && !decidesRequests(me))
    return (
      <>
        <Title title="Waiting for my approval" />
        <Typography sx={{ p: 2 }}>
          Only approvers decide resource requests: the leads of the team that owns a template, or role infra.
        </Typography>
      </>
    );
  return (
    <List
      resource="approvals"
      title="Waiting for my approval"
      sort={{ field: 'updatedAt', order: 'ASC' }}
      perPage={25}
      actions={false}
      exporter={false}
      disableSyncWithLocation
      empty={<Typography sx={{ p: 2 }}>Nothing waits for your approval.</Typography>}
    >
      <Datagrid bulkActionButtons={false} rowClick={false} data-testid="approval-queue">
        <FunctionField
          label="Name"
          render={(record: { id: string; name?: string }) => (
            <MuiLink component={Link} to={`/resources/${record.id}/show`}>
              {record.name}
            </MuiLink>
          )}
        />
        <FunctionField label="Request" render={(record: { state?: string }) => REQUEST[record.state ?? ''] ?? record.state} />
        <RefField source="templateId" reference="templates" label="Template" />
        <FunctionField
          label="Variables"
          render={(record: { variables?: unknown }) => <RequestedVariables variables={record.variables} />}
        />
        <ActorField source="creatorId" label="Requested by" />
        <FunctionField label="Changed since approval" render={(record: { id: string }) => <ChangesSinceApproval id={record.id} />} />
        <DateField source="updatedAt" label="Waiting since" showTime />
        <DecisionButtons />
      </Datagrid>
    </List>
  );
}
