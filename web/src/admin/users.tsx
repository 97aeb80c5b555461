import BlockIcon from '@mui/icons-material/Block';
import LogoutIcon from '@mui/icons-material/Logout';
import RestoreIcon from '@mui/icons-material/Restore';
import { Alert, Box, Chip, Stack } from '@mui/material';
import {
  AutocompleteArrayInput,
  BooleanField,
  CheckboxGroupInput,
  Create,
  Datagrid,
  DateField,
  Edit,
  EditButton,
  FunctionField,
  Labeled,
  List,
  PasswordInput,
  SaveButton,
  SearchInput,
  SelectInput,
  SimpleForm,
  TextField,
  TextInput,
  Toolbar,
  email,
  minLength,
  required,
  useRecordContext,
} from 'react-admin';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { UserActionButton } from './UserActionButton';
import { History } from '../common/History';

const ROLES = ['default', 'infra', 'super'] as const;
const ROLE_HELP =
  'default: read the catalog and request resources · infra: also write the catalog and approve requests · super: everything, including ' +
  'providers, users and the audit log.';
const PERMISSION_RESOURCES = [
  'executor',
  'integration',
  'resource',
  'secret',
  'source_code',
  'source_code_version',
  'storage',
  'template',
  'workspace',
  'team',
  'auth_provider',
  'user',
  'audit_log',
  'projection',
];
const GRANTS = PERMISSION_RESOURCES.flatMap((r) => ['read', 'write', 'admin'].map((l) => `${r}:${l}`)).map((id) => ({ id, name: id }));

function Chips({ values }: { readonly values: readonly string[] }) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {values.map((v) => (
        <Chip key={v} size="small" label={v} />
      ))}
    </Stack>
  );
}

/** The rule POST /api/users applies to identifiers. */
const identifierFormat = (value: unknown) =>
  typeof value === 'string' && !/^[A-Za-z0-9._@-]{1,100}$/.test(value) ? 'Letters, digits and . _ @ - only (at most 100)' : undefined;

const filters = [
  <SearchInput key="q" source="q" alwaysOn />,
  <SelectInput key="kind" source="kind" choices={choices(['human', 'service_account', 'guest'])} alwaysOn />,
  <SelectInput key="roles" source="roles" label="Role" choices={choices(ROLES)} alwaysOn />,
];

export function UserList() {
  return (
    <List resource="users" title="Users" filters={filters} sort={{ field: 'createdAt', order: 'ASC' }} exporter={false}>
      <Datagrid bulkActionButtons={false} rowClick="edit" data-testid="users">
        <TextField source="name" />
        <TextField source="identifier" />
        <TextField source="kind" />
        <TextField source="provider" />
        <FunctionField label="Roles" source="roles" sortable={false} render={(r: { roles: string[] }) => <Chips values={r.roles} />} />
        <FunctionField label="Grants" source="grants" sortable={false} render={(r: { grants: string[] }) => <Chips values={r.grants} />} />
        <BooleanField source="deactivated" />
        <DateField source="createdAt" />
        <EditButton />
      </Datagrid>
    </List>
  );
}

const roleAndGrantInputs = [
  <CheckboxGroupInput key="roles" source="roles" choices={choices(ROLES)} helperText={ROLE_HELP} />,
  <AutocompleteArrayInput
    key="grants"
    source="grants"
    choices={GRANTS}
    helperText="Extra permissions on top of the roles: {entity}:{read|write|admin}."
    fullWidth
  />,
];

export function UserCreate() {
  return (
    <Create
      resource="users"
      title="New service account"
      redirect="list"
      transform={(data: Record<string, unknown>) => ({ ...data, kind: 'service_account' })}
    >
      <SimpleForm defaultValues={{ roles: ['default'], grants: [] }}>
        <Alert severity="info" sx={{ mb: 2 }}>
          People arrive through single sign-on; here you create service accounts (for CI, runners, scripts). They sign in with their
          identifier and password.
        </Alert>
        <ServerErrors />
        <TextInput source="identifier" validate={[required(), identifierFormat]} />
        <PasswordInput
          source="password"
          validate={[required(), minLength(12)]}
          autoComplete="new-password"
          helperText="At least 12 characters, and not a common password (a few random words work well)."
        />
        <TextInput source="displayName" />
        <TextInput source="email" validate={email()} />
        {roleAndGrantInputs}
      </SimpleForm>
    </Create>
  );
}

function UserActions() {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Box sx={{ display: 'flex', gap: 1 }}>
      <UserActionButton
        action="revoke_sessions"
        label="Revoke sessions"
        icon={<LogoutIcon />}
        confirm="Every token issued to this user so far stops working at once."
      />
      {record.deactivated === true ? (
        <UserActionButton
          action="reactivate"
          label="Reactivate"
          icon={<RestoreIcon />}
          confirm="The user may sign in again (earlier tokens stay revoked)."
        />
      ) : (
        <UserActionButton
          action="deactivate"
          label="Deactivate"
          icon={<BlockIcon />}
          confirm="The user can no longer sign in and every token they hold stops working."
        />
      )}
    </Box>
  );
}

function UserEditToolbar() {
  return (
    <Toolbar>
      <SaveButton />
      <Box sx={{ flex: 1 }} />
      <UserActions />
    </Toolbar>
  );
}

export function UserEdit() {
  return (
    <Edit resource="users" title="User" mutationMode="pessimistic" redirect={false}>
      <SimpleForm toolbar={<UserEditToolbar />}>
        <ServerErrors />
        <Stack direction="row" spacing={4} sx={{ mb: 2 }}>
          <Labeled>
            <TextField source="identifier" />
          </Labeled>
          <Labeled>
            <TextField source="kind" />
          </Labeled>
          <Labeled>
            <TextField source="provider" />
          </Labeled>
          <Labeled>
            <BooleanField source="deactivated" />
          </Labeled>
        </Stack>
        <TextInput source="displayName" />
        <TextInput source="email" validate={email()} />
        {roleAndGrantInputs}
        <FunctionField
          render={(r: { kind: string }) =>
            r.kind === 'service_account' ? (
              <PasswordInput
                source="password"
                label="New password"
                autoComplete="new-password"
                validate={minLength(12)}
                helperText="Leave empty to keep the current password. A new one ends every session and token of this account."
              />
            ) : null
          }
        />
        <Labeled label="Effective permissions">
          <FunctionField render={(r: { permissions: string[] }) => <Chips values={r.permissions} />} />
        </Labeled>
      </SimpleForm>
      <Box sx={{ px: 2, pb: 2 }}>
        <History />
      </Box>
    </Edit>
  );
}
