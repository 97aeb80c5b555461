import ReplayIcon from '@mui/icons-material/Replay';
import { Alert, Stack } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AutocompleteArrayInput,
  ChipField,
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  PasswordInput,
  ReferenceArrayField,
  ReferenceArrayInput,
  SearchInput,
  Show,
  ShowButton,
  SimpleForm,
  SingleFieldList,
  TextArrayInput,
  TextField,
  TextInput,
  required,
  useRecordContext,
} from 'react-admin';
import { api } from '../api/client';
import { ConfirmedActionButton } from '../common/ConfirmedActionButton';
import { Item } from '../common/Item';
import { ServerErrors } from '../common/ServerErrors';
import { choices, WEBHOOK_KINDS } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, LabelsField, StatusField } from '../catalog/common';

const KINDS = choices(WEBHOOK_KINDS);

function WebhookInputs({ editing }: { readonly editing: boolean }) {
  return (
    <>
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique." fullWidth />
      <TextInput source="url" label="URL" validate={required()} helperText="Where the events are posted (http or https)." fullWidth />
      <PasswordInput
        source="secret"
        validate={editing ? undefined : required()}
        autoComplete="new-password"
        helperText={
          editing
            ? 'Leave ******** to keep it. A new secret signs beside the old one for 24 hours.'
            : 'whsec_ and the base64 of 24–64 random bytes (whsec_$(openssl rand -base64 32)), as Standard Webhooks libraries take it.'
        }
        fullWidth
      />
      <AutocompleteArrayInput
        source="entityKinds"
        label="Entity kinds"
        choices={KINDS}
        helperText="Empty: every kind (you must administer every kind you name)."
        fullWidth
      />
      <TextArrayInput
        source="eventTypes"
        label="Event types"
        helperText="E.g. ResourceApproved; empty: every type. Type one and press Enter."
        fullWidth
      />
      <ReferenceArrayInput source="ownerIds" reference="teams" sort={{ field: 'name', order: 'ASC' }}>
        <AutocompleteArrayInput label="Owned by" optionText="name" helperText="Only entities these teams own; empty: any." fullWidth />
      </ReferenceArrayInput>
      <CommonInputs />
    </>
  );
}

/** Webhooks (docs/contract.md §9): where the log's matching events are posted, signed. */
export function WebhookList() {
  return (
    <List
      resource="webhooks"
      filters={[<SearchInput key="q" source="q" alwaysOn />]}
      sort={{ field: 'name', order: 'ASC' }}
      exporter={false}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="url" label="URL" />
        <TextField source="entityKinds" label="Entity kinds" emptyText="every kind" />
        <LabelsField label="Labels" sortable={false} />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function WebhookCreate() {
  return (
    <Create resource="webhooks" redirect="show">
      <SimpleForm defaultValues={{ entityKinds: [], eventTypes: [], ownerIds: [] }}>
        <WebhookInputs editing={false} />
      </SimpleForm>
    </Create>
  );
}

export function WebhookEdit() {
  return (
    <Edit resource="webhooks" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <WebhookInputs editing />
      </SimpleForm>
    </Edit>
  );
}

interface Delivery {
  readonly state: 'pending' | 'active' | 'dead';
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastError: string | null;
  readonly delivered: number;
  readonly lastDeliveredAt: string | null;
}

/** Why a paused webhook sends nothing, and the take-over that lets it deliver again, as the caller. */
function PausedPanel() {
  const record = useRecordContext<{ id: string; pausedReason?: string | null }>();
  if (!record?.pausedReason) return null;
  return (
    <Alert
      severity="warning"
      sx={{ mt: 2 }}
      action={
        <ConfirmedActionButton
          label="Take over"
          icon={<ReplayIcon />}
          title="Deliver this webhook as you from now on?"
          content="It sends what you may read, starting with the event it stopped at."
          run={async () => {
            await api(`/api/webhooks/${encodeURIComponent(record.id)}/actions/takeOver`, { method: 'POST' });
          }}
          done="Taken over"
        />
      }
    >
      Paused: {record.pausedReason}
    </Alert>
  );
}

/** How the delivery stands, and the re-drive of a dead webhook. */
function DeliveryPanel() {
  const record = useRecordContext();
  const queryClient = useQueryClient();
  const id = String(record?.id ?? '');
  const key = ['webhook-delivery', id];
  const { data } = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => (await api<Delivery>(`/api/webhooks/${encodeURIComponent(id)}/delivery`, { signal })).body,
    enabled: id !== '',
    refetchInterval: 5000,
  });
  if (!data) return null;
  const when = (at: string | null) => (at === null ? 'never' : new Date(at).toLocaleString());
  return (
    <Stack spacing={1} sx={{ mt: 2 }}>
      {data.state === 'dead' && (
        <Alert
          severity="error"
          action={
            <ConfirmedActionButton
              label="Re-drive"
              icon={<ReplayIcon />}
              title="Send the events again from the one that failed?"
              content="Delivery starts again with the event it stopped at; later events follow in order."
              run={async () => {
                await api(`/api/webhooks/${encodeURIComponent(id)}/actions/redrive`, { method: 'POST' });
                await queryClient.invalidateQueries({ queryKey: key });
              }}
              done="Re-driven"
            />
          }
        >
          Stopped after {data.attempts} failed attempts: {data.lastError}
        </Alert>
      )}
      {data.state === 'active' && data.attempts > 0 && (
        <Alert severity="warning">
          Retrying ({data.attempts} failed so far, next {when(data.nextAttemptAt)}): {data.lastError}
        </Alert>
      )}
      <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Item label="Delivery">{data.state}</Item>
        <Item label="Delivered">{data.delivered}</Item>
        <Item label="Last delivered">{when(data.lastDeliveredAt)}</Item>
      </Stack>
    </Stack>
  );
}

export function WebhookShow() {
  return (
    <Show resource="webhooks" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="URL">
            <TextField source="url" />
          </Item>
          <Item label="Entity kinds">
            <TextField source="entityKinds" emptyText="every kind" />
          </Item>
          <Item label="Event types">
            <TextField source="eventTypes" emptyText="every type" />
          </Item>
          <Item label="Owned by">
            <ReferenceArrayField source="ownerIds" reference="teams" empty="any team">
              <SingleFieldList linkType="show">
                <ChipField source="name" size="small" />
              </SingleFieldList>
            </ReferenceArrayField>
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
        </Stack>
        <PausedPanel />
        <DeliveryPanel />
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
