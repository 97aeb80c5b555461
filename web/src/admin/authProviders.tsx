import { Alert, Box, Stack, Typography } from '@mui/material';
import {
  BooleanInput,
  Create,
  Datagrid,
  DateField,
  DeleteButton,
  Edit,
  EditButton,
  FunctionField,
  Labeled,
  List,
  SaveButton,
  SelectInput,
  SimpleForm,
  TextArrayInput,
  TextField,
  TextInput,
  Toolbar,
  required,
  useRecordContext,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ConfigurationInputs } from '../common/ConfigurationInputs';
import { CopyButton } from '../common/CopyButton';
import { ServerErrors } from '../common/ServerErrors';
import { ValueChip } from '../common/StatusChip';
import { DOMAIN_FILTER, PROVIDER_CONFIG, PROVIDER_TYPE_NAMES, PROVIDER_TYPES, SSO_TYPES, type ProviderType } from './providerTypes';
import { ProviderEnableButton } from './ProviderEnableButton';
import { History } from '../common/History';

const isProviderType = (value: unknown): value is ProviderType =>
  typeof value === 'string' && (PROVIDER_TYPES as readonly string[]).includes(value);

/** Keeps only the configuration keys of the chosen type (a type switch in the form leaves others behind). */
function transform(data: Record<string, unknown>, type: unknown): Record<string, unknown> {
  if (!isProviderType(type)) return data;
  const configuration = (data.configuration ?? {}) as Record<string, unknown>;
  const keys = PROVIDER_CONFIG[type].map((k) => k.key);
  const kept = Object.fromEntries(
    Object.entries(configuration).filter(([key, value]) => keys.includes(key) && value !== null && value !== ''),
  );
  const { filterByDomain, ...rest } = data;
  const domains = Array.isArray(filterByDomain) ? filterByDomain : [];
  return { ...rest, configuration: kept, ...(DOMAIN_FILTER[type] === 'none' ? {} : { filterByDomain: domains }) };
}

function DomainInput({ type }: { readonly type: ProviderType }) {
  const mode = DOMAIN_FILTER[type];
  if (mode === 'none') return null;
  if (mode === 'list')
    return (
      <TextArrayInput
        source="filterByDomain"
        label="Allowed e-mail domains"
        helperText="Only verified e-mail addresses @ one of these domains (no subdomains) may sign in. Empty: any."
        fullWidth
      />
    );
  return (
    <TextInput
      source="filterByDomain"
      label="Allowed e-mail domain"
      helperText="Only verified e-mail addresses @ this domain (no subdomains) may sign in. Empty: any."
      format={(value: unknown) => (Array.isArray(value) ? String(value[0] ?? '') : '')}
      parse={(value: string) => (value.trim() === '' ? [] : [value.trim()])}
      fullWidth
    />
  );
}

/** The URL to register at the identity provider, with a copy button. */
function CallbackUrl({ type, url, pending }: { readonly type: ProviderType; readonly url: string; readonly pending: boolean }) {
  if (!SSO_TYPES.includes(type)) return null;
  return (
    <Box sx={{ mb: 2, width: '100%' }} data-testid="callback-url">
      <Typography variant="subtitle2" component="p">
        Callback URL to register at {PROVIDER_TYPE_NAMES[type]}
        {pending ? ' (once saved)' : ''}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Box component="code" sx={{ p: 0.5, bgcolor: 'grey.100', borderRadius: 1, wordBreak: 'break-all' }}>
          {url}
        </Box>
        <CopyButton value={url} label="Copy callback URL" />
      </Stack>
    </Box>
  );
}

const callbackPreview = (key: unknown, type: ProviderType): string =>
  `${window.location.origin}/api/auth/${typeof key === 'string' && key !== '' ? key : type}/callback`;

function TypedInputs({ type, creating }: { readonly type: ProviderType; readonly creating: boolean }) {
  const record = useRecordContext();
  const key: unknown = useWatch({ name: 'key' });
  return (
    <>
      {type === 'guest' && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          While a guest provider is enabled anyone can sign in as the shared guest identity, with the role below. Insecure, for development
          only.
        </Alert>
      )}
      <CallbackUrl
        type={type}
        url={creating ? callbackPreview(key, type) : String(record?.callbackUrl ?? callbackPreview(record?.key, type))}
        pending={creating}
      />
      <ConfigurationInputs keys={PROVIDER_CONFIG[type]} />
      <DomainInput type={type} />
    </>
  );
}

function CreateTypedInputs() {
  const type: unknown = useWatch({ name: 'type' });
  return isProviderType(type) ? <TypedInputs type={type} creating /> : null;
}

export function AuthProviderList() {
  return (
    <List resource="auth_providers" title="Authentication providers" sort={{ field: 'createdAt', order: 'ASC' }} exporter={false}>
      <Datagrid bulkActionButtons={false} rowClick="edit" data-testid="auth-providers">
        <TextField source="name" />
        <TextField source="key" />
        <FunctionField
          label="Type"
          sortBy="type"
          render={(r: { type: string }) => (isProviderType(r.type) ? PROVIDER_TYPE_NAMES[r.type] : r.type)}
        />
        <FunctionField
          label="Enabled"
          sortBy="enabled"
          render={(r: { enabled: boolean }) => <ValueChip value={r.enabled ? 'enabled' : 'disabled'} />}
        />
        <DateField source="updatedAt" showTime />
        <EditButton />
        <ProviderEnableButton />
      </Datagrid>
    </List>
  );
}

export function AuthProviderCreate() {
  return (
    <Create
      resource="auth_providers"
      title="New authentication provider"
      redirect="edit"
      transform={(data: Record<string, unknown>) => transform(data, data.type)}
    >
      <SimpleForm>
        <ServerErrors />
        <SelectInput source="type" choices={PROVIDER_TYPES.map((id) => ({ id, name: PROVIDER_TYPE_NAMES[id] }))} validate={required()} />
        <TextInput source="name" validate={required()} helperText="Shown on the sign-in button; unique." fullWidth />
        <TextInput source="key" helperText="Slug used in its URLs ([a-z0-9_-]); default: the type. Cannot change later." />
        <TextInput source="description" multiline fullWidth />
        <BooleanInput source="enabled" defaultValue={true} />
        <CreateTypedInputs />
      </SimpleForm>
    </Create>
  );
}

function EditToolbar() {
  return (
    <Toolbar>
      <SaveButton />
      <Box sx={{ flex: 1 }} />
      <ProviderEnableButton />
      <DeleteButton
        mutationMode="pessimistic"
        confirmTitle="Delete this provider?"
        confirmContent="Its users can no longer sign in through it. The service refuses when it is the last way a super user signs in."
      />
    </Toolbar>
  );
}

function EditInputs() {
  const record = useRecordContext();
  const type: unknown = record?.type;
  return (
    <>
      <ServerErrors />
      <Stack direction="row" spacing={4} sx={{ mb: 2 }}>
        <Labeled label="Type">
          <FunctionField render={(r: { type: string }) => (isProviderType(r.type) ? PROVIDER_TYPE_NAMES[r.type] : r.type)} />
        </Labeled>
        <Labeled label="Key">
          <TextField source="key" />
        </Labeled>
        <Labeled label="Status">
          <FunctionField render={(r: { enabled: boolean }) => <ValueChip value={r.enabled ? 'enabled' : 'disabled'} />} />
        </Labeled>
      </Stack>
      <TextInput source="name" validate={required()} fullWidth />
      <TextInput source="description" multiline fullWidth />
      {isProviderType(type) && <TypedInputs type={type} creating={false} />}
    </>
  );
}

export function AuthProviderEdit() {
  return (
    <Edit
      resource="auth_providers"
      title="Authentication provider"
      mutationMode="pessimistic"
      redirect={false}
      transform={(data: Record<string, unknown>, options?: { previousData?: Record<string, unknown> }) =>
        transform(data, options?.previousData?.type ?? data.type)
      }
    >
      <SimpleForm toolbar={<EditToolbar />}>
        <EditInputs />
      </SimpleForm>
      <Box sx={{ px: 2, pb: 2 }}>
        <History />
      </Box>
    </Edit>
  );
}
