import { Stack } from '@mui/material';
import {
  AutocompleteArrayInput,
  BooleanInput,
  ChipField,
  Create,
  Datagrid,
  DateField,
  Edit,
  FunctionField,
  List,
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
} from 'react-admin';
import { ServerErrors } from '../common/ServerErrors';
import { CommonInputs, CommonShowFooter, EnabledShowActions, Item, LabelsField, StatusField } from '../catalog/common';

/** A picker of users (people and service accounts that are not deactivated). Listing users needs `user:read`. */
function UsersInput({ source, label, helperText }: { readonly source: string; readonly label: string; readonly helperText: string }) {
  return (
    <ReferenceArrayInput source={source} reference="users" filter={{ deactivated: false }} sort={{ field: 'identifier', order: 'ASC' }}>
      <AutocompleteArrayInput
        label={label}
        optionText="identifier"
        filterToQuery={(q: string) => (q ? { q } : {})}
        helperText={helperText}
        fullWidth
      />
    </ReferenceArrayInput>
  );
}

function UsersField({ source }: { readonly source: string; readonly label?: string }) {
  return (
    <ReferenceArrayField source={source} reference="users" empty="—">
      <SingleFieldList linkType={false}>
        <ChipField source="identifier" size="small" />
      </SingleFieldList>
    </ReferenceArrayField>
  );
}

function TeamInputs() {
  return (
    <>
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique." fullWidth />
      <UsersInput source="leadIds" label="Leads" helperText="Administer what the team owns and approve requests for its templates." />
      <UsersInput source="memberIds" label="Members" helperText="Change what the team owns." />
      <TextArrayInput
        source="groupReferences"
        label="Groups from sign-in"
        helperText={
          'Identity-provider groups whose members are members at their next sign-in: a Backstage reference ' +
          "(group:default/payments) or a value of a provider's groups claim. Type one and press Enter."
        }
        fullWidth
      />
      <BooleanInput
        source="allowSelfApproval"
        label="Approvers may approve their own requests"
        helperText="Off by default (separation of duties); only holders of team:write change it, and such an approval says so."
      />
      <CommonInputs owned={false} />
    </>
  );
}

/** Teams (docs/contract.md §6): who owns what. Created by super; administered by their leads. */
export function TeamList() {
  return (
    <List resource="teams" filters={[<SearchInput key="q" source="q" alwaysOn />]} sort={{ field: 'name', order: 'ASC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <UsersField source="leadIds" label="Leads" />
        <UsersField source="memberIds" label="Members" />
        <LabelsField label="Labels" sortable={false} />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function TeamCreate() {
  return (
    <Create resource="teams" redirect="show">
      <SimpleForm>
        <TeamInputs />
      </SimpleForm>
    </Create>
  );
}

export function TeamEdit() {
  return (
    <Edit resource="teams" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <TeamInputs />
      </SimpleForm>
    </Edit>
  );
}

export function TeamShow() {
  return (
    <Show resource="teams" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Leads">
            <UsersField source="leadIds" />
          </Item>
          <Item label="Members">
            <UsersField source="memberIds" />
          </Item>
          <Item label="Groups from sign-in">
            <TextField source="groupReferences" emptyText="—" />
          </Item>
          <Item label="Self-approval">
            <FunctionField render={(team: { allowSelfApproval?: boolean }) => (team.allowSelfApproval ? 'allowed' : 'not allowed')} />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
        </Stack>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
