import { RelationsTree } from '../common/RelationsTree';
import { RelatedList } from '../common/RelatedList';
import { Stack } from '@mui/material';
import { useEffect } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import {
  BooleanField,
  BooleanInput,
  Create,
  Datagrid,
  DateField,
  Edit,
  List,
  Show,
  ShowButton,
  SimpleForm,
  TextArrayInput,
  TextField,
  TextInput,
  UrlField,
  required,
} from 'react-admin';
import { JsonField } from '../common/JsonField';
import { JsonInput } from '../common/JsonInput';
import { ServerErrors } from '../common/ServerErrors';
import {
  CommonInputs,
  CommonShowFooter,
  EnabledShowActions,
  enabledFilters,
  Item,
  LabelsField,
  RefArrayField,
  RefArrayInput,
  StatusField,
} from './common';

/** The rule the API applies to a template's slug. */
const slugFormat = (value: unknown) =>
  typeof value === 'string' && !/^[a-z0-9_]+$/.test(value) ? 'Lower-case letters, digits and _ only' : undefined;

export function TemplateList() {
  return (
    <List resource="templates" filters={enabledFilters()} sort={{ field: 'name', order: 'ASC' }} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <TextField source="template" label="Slug" />
        <BooleanField source="abstract" />
        <StatusField label="Status" />
        <LabelsField label="Labels" />
        <DateField source="updatedAt" />
        <ShowButton />
      </Datagrid>
    </List>
  );
}

/** `Payments Kafka topic` → `payments_kafka_topic`: the slug a name suggests. */
export const slugOf = (name: string): string =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);

/** While a new template's slug has not been typed, it follows the name. */
function SlugFromName() {
  const name = useWatch<{ name?: string }>({ name: 'name' });
  const { setValue, getFieldState } = useFormContext<{ template?: string }>();
  useEffect(() => {
    if (getFieldState('template').isDirty) return;
    setValue('template', slugOf(typeof name === 'string' ? name : ''), { shouldValidate: false });
  }, [name, setValue, getFieldState]);
  return null;
}

function TemplateInputs({ creating }: { readonly creating: boolean }) {
  return (
    <>
      {creating && <SlugFromName />}
      <ServerErrors />
      <TextInput source="name" validate={required()} helperText="Unique." fullWidth />
      <TextInput
        source="template"
        label="Slug"
        validate={[required(), slugFormat]}
        disabled={!creating}
        helperText={creating ? 'Filled from the name until you type one. Unique; cannot change later.' : 'Immutable.'}
      />
      <BooleanInput source="abstract" helperText="Abstract templates group others; their resources need no source code version." />
      <TextArrayInput
        source="cloudResourceTypes"
        label="Cloud resource types"
        helperText="e.g. aws_s3_bucket; press Enter after each."
        fullWidth
      />
      <RefArrayInput source="executorIds" reference="executors" label="Executors" filter={{ status: undefined }} />
      <RefArrayInput source="parentIds" reference="templates" label="Parent templates" />
      <TextInput
        source="documentationUrl"
        label="Documentation URL"
        type="url"
        helperText="Optional: where its documentation lives (http or https)."
        parse={(value: string) => (value === '' ? null : value)}
        fullWidth
      />
      <JsonInput source="configuration" label="Configuration" />
      <CommonInputs />
    </>
  );
}

export function TemplateCreate() {
  return (
    <Create resource="templates" redirect="show">
      <SimpleForm defaultValues={{ configuration: {} }}>
        <TemplateInputs creating />
      </SimpleForm>
    </Create>
  );
}

export function TemplateEdit() {
  return (
    <Edit resource="templates" mutationMode="pessimistic" redirect="show">
      <SimpleForm>
        <TemplateInputs creating={false} />
      </SimpleForm>
    </Edit>
  );
}

export function TemplateShow() {
  return (
    <Show resource="templates" actions={<EnabledShowActions />}>
      <Stack sx={{ p: 2 }}>
        <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Item label="Name">
            <TextField source="name" />
          </Item>
          <Item label="Slug">
            <TextField source="template" />
          </Item>
          <Item label="Status">
            <StatusField />
          </Item>
          <Item label="Abstract">
            <BooleanField source="abstract" />
          </Item>
          <Item label="Executors">
            <RefArrayField source="executorIds" reference="executors" />
          </Item>
          <Item label="Parents">
            <RefArrayField source="parentIds" reference="templates" />
          </Item>
        </Stack>
        <Item label="Cloud resource types">
          <TextField source="cloudResourceTypes" emptyText="—" />
        </Item>
        <Item label="Documentation">
          <UrlField source="documentationUrl" target="_blank" rel="noreferrer" emptyText="—" />
        </Item>
        <Item label="Configuration">
          <JsonField source="configuration" />
        </Item>
        <RelationsTree plural="templates" />
        <RelatedList title="Resources from this template" reference="resources" target="templateId" />
        <RelatedList title="Source code versions" reference="source_code_versions" target="templateId" nameSource="identifier" />
        <CommonShowFooter />
      </Stack>
    </Show>
  );
}
