import { FavoriteButton } from '../common/FavoriteButton';
import { RelationsTree } from '../common/RelationsTree';
import { Stack } from '@mui/material';
import {
  AutocompleteInput,
  Create,
  Datagrid,
  DateField,
  Edit,
  EditButton,
  List,
  ReferenceInput,
  Show,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  TopToolbar,
  required,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { ActorField } from '../common/ActorField';
import { NameValueField } from '../common/JsonField';
import { ServerErrors } from '../common/ServerErrors';
import { StatusChip } from '../common/StatusChip';
import { CommonInputs, CommonShowFooter, Item, OPTION_TEXT, RefArrayField, RefArrayInput, RefField, RefInput } from './common';
import { LifecycleSummary } from './LifecycleSummary';
import { Runs } from './Runs';
import { TypedVariablesInput, useTypedVariablesTransform, withVariableValues } from './TypedVariablesInput';
import { lifecycleFilters } from './storages';

/** The versions of the chosen template only. */
function VersionPicker() {
  const templateId: unknown = useWatch({ name: 'templateId' });
  return (
    <ReferenceInput
      source="sourceCodeVersionId"
      reference="source_code_versions"
      filter={{ status: 'enabled', ...(typeof templateId === 'string' && templateId !== '' ? { templateId } : {}) }}
      sort={{ field: 'identifier', order: 'ASC' }}
    >
      <AutocompleteInput
        label="Source code version"
        optionText={OPTION_TEXT.source_code_versions}
        filterToQuery={(q: string) => (q ? { q } : {})}
        helperText="Required unless the template is abstract."
        fullWidth
      />
    </ReferenceInput>
  );
}

function ResourceInputs({ creating }: { readonly creating: boolean }) {
  return (
    <>
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique per template." fullWidth />
      {creating ? (
        <RefInput source="templateId" reference="templates" label="Template" validate={required()} />
      ) : (
        <RefInput source="templateId" reference="templates" label="Template" />
      )}
      <VersionPicker />
      <RefInput source="storageId" reference="storages" label="Storage" filter={{ status: undefined }} />
      <RefInput source="workspaceId" reference="workspaces" label="Workspace" />
      <TextInput source="storagePath" label="Storage path" fullWidth />
      <RefArrayInput source="integrationIds" reference="integrations" label="Integrations" />
      <RefArrayInput source="secretIds" reference="secrets" label="Secrets" />
      <RefArrayInput source="parentIds" reference="resources" label="Parent resources" filter={{ status: undefined }} />
      <TypedVariablesInput />
      <CommonInputs />
    </>
  );
}

export function ResourceList() {
  return (
    <List resource="resources" filters={lifecycleFilters} sort={{ field: 'updatedAt', order: 'DESC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false} data-testid="resources">
        <TextField source="name" />
        <RefField source="templateId" reference="templates" label="Template" sortable={false} />
        <StatusChip source="state" label="State" />
        <StatusChip source="status" label="Status" />
        <ActorField source="creatorId" label="Requested by" sortable={false} />
        <DateField source="updatedAt" showTime />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function ResourceCreate() {
  const transform = useTypedVariablesTransform();
  return (
    <Create resource="resources" title="Request a resource" redirect="show" transform={transform}>
      <SimpleForm defaultValues={{ variables: {} }}>
        <ResourceInputs creating />
      </SimpleForm>
    </Create>
  );
}

export function ResourceEdit() {
  const transform = useTypedVariablesTransform();
  return (
    <Edit
      resource="resources"
      mutationMode="pessimistic"
      redirect="show"
      transform={transform}
      queryOptions={{ select: withVariableValues }}
    >
      <SimpleForm>
        <ResourceInputs creating={false} />
      </SimpleForm>
    </Edit>
  );
}

/** What the last successful run wrote (docs/contract.md §2: outputs, written by runs). */
function Outputs() {
  return (
    <Item label="Outputs">
      <span data-testid="outputs">
        <NameValueField source="outputs" label="Outputs" />
      </span>
    </Item>
  );
}

/** A resource: state and status, the actions the caller may take now, outputs, relations and history. */
export function ResourceShow() {
  return (
    <Show
      resource="resources"
      actions={
        <TopToolbar>
          <FavoriteButton />
          <EditButton />
        </TopToolbar>
      }
    >
      <Stack sx={{ p: 2 }}>
        <LifecycleSummary approvals />
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Template">
            <RefField source="templateId" reference="templates" />
          </Item>
          <Item label="Source code version">
            <RefField source="sourceCodeVersionId" reference="source_code_versions" />
          </Item>
          <Item label="Storage">
            <RefField source="storageId" reference="storages" />
          </Item>
          <Item label="Workspace">
            <RefField source="workspaceId" reference="workspaces" />
          </Item>
          <Item label="Storage path">
            <TextField source="storagePath" emptyText="—" />
          </Item>
          <Item label="Integrations">
            <RefArrayField source="integrationIds" reference="integrations" />
          </Item>
          <Item label="Secrets">
            <RefArrayField source="secretIds" reference="secrets" />
          </Item>
          <Item label="Parents">
            <RefArrayField source="parentIds" reference="resources" />
          </Item>
        </Stack>
        <RelationsTree plural="resources" />
        <Runs />
        <Outputs />
        <Item label="Variables (sensitive values masked)">
          <NameValueField source="variables" label="Variables" />
        </Item>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
