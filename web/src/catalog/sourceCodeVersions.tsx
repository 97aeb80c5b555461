import { Stack } from '@mui/material';
import {
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  NumberField,
  NumberInput,
  SelectInput,
  Show,
  ShowButton,
  SimpleForm,
  TextField,
  TextInput,
  required,
} from 'react-admin';
import { JsonField } from '../common/JsonField';
import { JsonInput } from '../common/JsonInput';
import { ServerErrors } from '../common/ServerErrors';
import { choices } from '../common/entities';
import { CommonInputs, CommonShowFooter, EnabledShowActions, enabledFilters, Item, RefField, RefInput, StatusField } from './common';
import { GitRefInput } from './GitRefInput';
import { VariableDeclarationsField } from './VariableDeclarationsField';
import { VariableDeclarationsInput } from './VariableDeclarationsInput';
import { cleanDeclarations } from './variables';

const STATES = ['preview', 'active', 'deprecated', 'archived'];

/** The structured variables form leaves empty parts that the API does not take. */
const withCleanDeclarations = (data: Record<string, unknown>) => ({ ...data, variables: cleanDeclarations(data.variables) });

function VersionInputs({ creating }: { readonly creating: boolean }) {
  return (
    <>
      <ServerErrors />
      <RefInput
        source="templateId"
        reference="templates"
        label="Template"
        validate={required()}
        helperText={creating ? 'Fixed once created.' : undefined}
      />
      <RefInput source="sourceCodeId" reference="source_codes" label="Source code" validate={required()} />
      <GitRefInput source="sourceCodeVersion" label="Git tag" refs="gitTags" helperText="A tag or a branch, not both." />
      <GitRefInput source="sourceCodeBranch" label="Git branch" refs="gitBranches" />
      <TextInput
        source="sourceCodeFolder"
        label="Folder"
        validate={required()}
        helperText="Relative to the repository root; . for the root."
        defaultValue="."
      />
      <SelectInput source="lifecycleState" label="Lifecycle state" choices={choices(STATES)} defaultValue="preview" />
      <NumberInput
        source="index"
        label="Position"
        min={0}
        step={1}
        defaultValue={0}
        helperText="Where it stands among the template's versions; lower first."
      />
      <TextInput
        source="breakingChanges"
        label="Breaking changes"
        helperText="What moving a resource to this version breaks; empty when nothing."
        multiline
        minRows={2}
        fullWidth
      />
      <VariableDeclarationsInput />
      <JsonInput source="outputs" label="Outputs" kind="array" helperText='JSON list of {"name", "description", "sensitive"}' />
      <CommonInputs />
    </>
  );
}

export function SourceCodeVersionList() {
  return (
    <List
      resource="source_code_versions"
      title="Source code versions"
      filters={enabledFilters([<SelectInput key="l" source="lifecycleState" label="Lifecycle" choices={choices(STATES)} alwaysOn />])}
      sort={{ field: 'identifier', order: 'ASC' }}
      exporter={false}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="identifier" />
        <RefField source="templateId" reference="templates" label="Template" sortable={false} />
        <RefField source="sourceCodeId" reference="source_codes" label="Source code" sortable={false} />
        <TextField source="lifecycleState" label="Lifecycle" />
        <StatusField label="Status" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

export function SourceCodeVersionCreate() {
  return (
    <Create resource="source_code_versions" title="New source code version" redirect="show" transform={withCleanDeclarations}>
      <SimpleForm defaultValues={{ variables: [], outputs: [] }}>
        <VersionInputs creating />
      </SimpleForm>
    </Create>
  );
}

export function SourceCodeVersionEdit() {
  return (
    <Edit
      resource="source_code_versions"
      title="Source code version"
      mutationMode="pessimistic"
      redirect="show"
      transform={withCleanDeclarations}
    >
      <SimpleForm>
        <VersionInputs creating={false} />
      </SimpleForm>
    </Edit>
  );
}

export function SourceCodeVersionShow() {
  return (
    <Show resource="source_code_versions" title="Source code version" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Identifier">
            <TextField source="identifier" />
          </Item>
          <Item label="Template">
            <RefField source="templateId" reference="templates" />
          </Item>
          <Item label="Source code">
            <RefField source="sourceCodeId" reference="source_codes" />
          </Item>
          <Item label="Tag">
            <TextField source="sourceCodeVersion" emptyText="—" />
          </Item>
          <Item label="Branch">
            <TextField source="sourceCodeBranch" emptyText="—" />
          </Item>
          <Item label="Folder">
            <TextField source="sourceCodeFolder" />
          </Item>
          <Item label="Lifecycle">
            <TextField source="lifecycleState" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
          <Item label="Position">
            <NumberField source="index" />
          </Item>
        </Stack>
        <Item label="Breaking changes">
          <TextField source="breakingChanges" emptyText="none" sx={{ whiteSpace: 'pre-wrap' }} />
        </Item>
        <Item label="Variables">
          <VariableDeclarationsField />
        </Item>
        <Item label="Outputs">
          <JsonField source="outputs" />
        </Item>
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
