import { FavoriteButton } from '../common/FavoriteButton';
import { Box, Stack } from '@mui/material';
import type { ReactElement } from 'react';
import {
  BooleanInput,
  AutocompleteArrayInput,
  AutocompleteInput,
  ChipField,
  DateField,
  DeleteButton,
  EditButton,
  NumberField,
  ReferenceArrayField,
  ReferenceArrayInput,
  ReferenceField,
  ReferenceInput,
  SearchInput,
  SelectInput,
  SingleFieldList,
  TextArrayInput,
  TextField,
  TextInput,
  TopToolbar,
  useRecordContext,
  useResourceContext,
  type Validator,
} from 'react-admin';
import { ActorField } from '../common/ActorField';
import { choices } from '../common/entities';
import { History } from '../common/History';
import { CompareRevisions } from '../common/CompareRevisions';
import { StatusChip } from '../common/StatusChip';
import { EnableButton } from './EnableButton';
import { Item } from '../common/Item';
import { OwnerInput, PermissionsPanel } from './Ownership';
import { mayDo, useEntityAccess } from '../api/access';

/** The common search and status filters of a catalog list. */
export const enabledFilters = (extra: ReactElement[] = []): ReactElement[] => [
  <SearchInput key="q" source="q" alwaysOn />,
  <SelectInput key="status" source="status" choices={choices(['enabled', 'disabled'])} alwaysOn />,
  ...ownerFilters,
  ...extra,
];

/** "My teams'" (what the caller's teams own) and the owning team, for every catalog list. */
export const ownerFilters: ReactElement[] = [
  <BooleanInput key="mine" source="mine" label="My teams'" alwaysOn />,
  <ReferenceInput key="ownerId" source="ownerId" reference="teams" sort={{ field: 'name', order: 'ASC' }}>
    <AutocompleteInput label="Owner" optionText="name" filterToQuery={(q: string) => (q ? { q } : {})} />
  </ReferenceInput>,
];

/** Which record field names an entity in pickers and links. */
export const OPTION_TEXT: Readonly<Record<string, string>> = {
  templates: 'name',
  integrations: 'name',
  secrets: 'name',
  workspaces: 'name',
  source_codes: 'identifier',
  source_code_versions: 'identifier',
  storages: 'name',
  executors: 'name',
  resources: 'name',
  teams: 'name',
};

/** A picker for one related entity (enabled ones only: disabled entities cannot be newly referenced). */
export function RefInput({
  source,
  reference,
  label,
  validate,
  filter,
  helperText,
}: {
  readonly source: string;
  readonly reference: string;
  readonly label?: string;
  readonly validate?: Validator | Validator[];
  readonly filter?: Record<string, unknown>;
  readonly helperText?: string;
}) {
  return (
    <ReferenceInput
      source={source}
      reference={reference}
      filter={{ status: 'enabled', ...filter }}
      sort={{ field: OPTION_TEXT[reference] ?? 'name', order: 'ASC' }}
    >
      <AutocompleteInput
        label={label}
        optionText={OPTION_TEXT[reference] ?? 'name'}
        filterToQuery={(q: string) => (q ? { q } : {})}
        validate={validate}
        helperText={helperText}
        fullWidth
      />
    </ReferenceInput>
  );
}

/** A picker for a list of related entities. */
export function RefArrayInput({
  source,
  reference,
  label,
  filter,
  helperText,
}: {
  readonly source: string;
  readonly reference: string;
  readonly label?: string;
  readonly filter?: Record<string, unknown>;
  readonly helperText?: string;
}) {
  return (
    <ReferenceArrayInput
      source={source}
      reference={reference}
      filter={{ status: 'enabled', ...filter }}
      sort={{ field: OPTION_TEXT[reference] ?? 'name', order: 'ASC' }}
    >
      <AutocompleteArrayInput
        label={label}
        optionText={OPTION_TEXT[reference] ?? 'name'}
        filterToQuery={(q: string) => (q ? { q } : {})}
        helperText={helperText}
        fullWidth
      />
    </ReferenceArrayInput>
  );
}

/** A link to one related entity. */
export function RefField({
  source,
  reference,
  label,
}: {
  readonly source: string;
  readonly reference: string;
  readonly label?: string;
  readonly sortable?: boolean;
}) {
  return (
    <ReferenceField source={source} reference={reference} link="show" label={label} empty="—">
      <TextField source={OPTION_TEXT[reference] ?? 'name'} />
    </ReferenceField>
  );
}

/** Links to a list of related entities. */
export function RefArrayField({
  source,
  reference,
  label,
}: {
  readonly source: string;
  readonly reference: string;
  readonly label?: string;
  readonly sortable?: boolean;
}) {
  return (
    <ReferenceArrayField source={source} reference={reference} label={label} empty="—">
      <SingleFieldList linkType="show">
        <ChipField source={OPTION_TEXT[reference] ?? 'name'} size="small" clickable />
      </SingleFieldList>
    </ReferenceArrayField>
  );
}

/** Description and labels, as every entity has them, and the owning team (every catalog entity's). */
export function CommonInputs({ owned = true }: { readonly owned?: boolean }) {
  return (
    <>
      {owned && <OwnerInput />}
      <TextInput source="description" multiline fullWidth />
      <TextArrayInput source="labels" helperText="Type a label and press Enter." fullWidth />
    </>
  );
}

/** Labels as chips. */
export function LabelsField(_props: { readonly label?: string; readonly sortable?: boolean }) {
  const record = useRecordContext();
  const labels = (record?.labels ?? []) as string[];
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {labels.map((l) => (
        <Box key={l} component="span" sx={{ px: 1, borderRadius: 1, bgcolor: 'grey.200', fontSize: 12 }}>
          {l}
        </Box>
      ))}
    </Stack>
  );
}

/** A labelled value on a show page (re-exported: every show page imports it from here). */
export { Item };

/** The block every show page ends with: common fields, then the entity's history. */
export function CommonShowFooter() {
  return (
    <>
      <Stack direction="row" spacing={4} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Item label="Description">
          <TextField source="description" emptyText="—" />
        </Item>
        <Item label="Labels">
          <LabelsField />
        </Item>
        <Item label="Owner">
          <RefField source="ownerId" reference="teams" />
        </Item>
        <Item label="Created by">
          <ActorField source="creatorId" />
        </Item>
        <Item label="Created">
          <DateField source="createdAt" showTime />
        </Item>
        <Item label="Updated">
          <DateField source="updatedAt" showTime />
        </Item>
        <Item label="Revision">
          <NumberField source="revision" />
        </Item>
      </Stack>
      <PermissionsPanel />
      <History />
      <CompareRevisions />
    </>
  );
}

/** Show-page actions of enable/disable entities: edit, enable/disable, delete — each only when the service lists it. */
export function EnabledShowActions() {
  const record = useRecordContext();
  const resource = useResourceContext() ?? '';
  const access = useEntityAccess(resource, record?.id);
  return (
    <TopToolbar>
      <FavoriteButton />
      {mayDo(access, 'update') && <EditButton />}
      {(mayDo(access, 'enable') || mayDo(access, 'disable')) && <EnableButton />}
      {mayDo(access, 'delete') && <DeleteButton mutationMode="pessimistic" />}
    </TopToolbar>
  );
}

/** The status column/field of enable/disable entities. */
export const StatusField = StatusChip;
