import { Box, Stack, Typography } from '@mui/material';
import {
  ArrayInput,
  BooleanInput,
  NumberInput,
  SelectInput,
  SimpleFormIterator,
  TextInput,
  required,
  useSimpleFormIteratorItem,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { JsonInput } from '../common/JsonInput';
import { choices } from '../common/entities';
import { VARIABLE_TYPES, enumValues, typeOf } from './variables';

/** The default of one declaration, typed by the declaration's own type as chosen in the same row. */
function DefaultInput() {
  const { index } = useSimpleFormIteratorItem();
  const type = typeOf(String(useWatch({ name: `variables.${index}.type` }) ?? 'string'));
  const helperText = 'Optional: what the request form starts from.';
  switch (type) {
    case 'number':
      return <NumberInput source="default" label="Default" helperText={helperText} fullWidth />;
    case 'bool':
      return (
        <SelectInput
          source="default"
          label="Default"
          helperText={helperText}
          choices={[
            { id: true as unknown as string, name: 'true' },
            { id: false as unknown as string, name: 'false' },
          ]}
          emptyText="none"
          fullWidth
        />
      );
    case 'list':
    case 'map':
      return (
        <JsonInput
          source="default"
          label="Default"
          kind={type === 'list' ? 'array' : 'object'}
          emptyValue={null}
          helperText={`${helperText} JSON ${type === 'list' ? 'list' : 'object'}.`}
        />
      );
    case 'enum':
      return <EnumDefaultInput helperText={helperText} />;
    default:
      return <TextInput source="default" label="Default" helperText={helperText} fullWidth />;
  }
}

/** An enum's default: one of the values declared in the same row. */
function EnumDefaultInput({ helperText }: { readonly helperText: string }) {
  const { index } = useSimpleFormIteratorItem();
  const list = enumValues(useWatch({ name: `variables.${index}.validation.values` }));
  return (
    <SelectInput
      source="default"
      label="Default"
      helperText={helperText}
      choices={list.map((value) => ({ id: value, name: value }))}
      emptyText="none"
      fullWidth
    />
  );
}

/** The values as the form holds them: the API's list, or the text typed (`small, medium, large`). */
const valuesToText = (values: unknown): string => (Array.isArray(values) ? values.join(', ') : typeof values === 'string' ? values : '');

/** An enum's values, shown only for enums (one text input, comma-separated). */
function EnumValuesInput() {
  const { index } = useSimpleFormIteratorItem();
  const type = typeOf(String(useWatch({ name: `variables.${index}.type` }) ?? 'string'));
  if (type !== 'enum') return null;
  return (
    <TextInput
      source="validation.values"
      label="Values"
      helperText="The choices, separated by commas: small, medium, large."
      // The text stays as typed (a trailing comma included); cleanDeclarations splits it on save.
      parse={(text: string) => text}
      format={valuesToText}
      validate={required('an enum lists its values')}
      fullWidth
    />
  );
}

const row = {
  direction: { xs: 'column', md: 'row' },
  spacing: 2,
  useFlexGap: true,
  sx: { width: '100%', alignItems: { md: 'flex-start' } },
} as const;

/** One declaration, in three rows: what it is, what the form shows, and its rule. */
function DeclarationFields() {
  return (
    <Stack sx={{ width: '100%', pt: 1 }}>
      <Stack {...row}>
        {/* Inputs are full width by default: without a basis and a cap the type's select took the row. */}
        <TextInput
          source="name"
          validate={required()}
          helperText="A letter or _, then letters, digits, _ and -."
          sx={{ flex: '2 1 240px', minWidth: 200 }}
        />
        <SelectInput
          source="type"
          choices={choices([...VARIABLE_TYPES])}
          defaultValue="string"
          validate={required()}
          helperText={false}
          sx={{ flex: '1 1 160px', minWidth: 140, maxWidth: 240 }}
        />
        <BooleanInput source="required" defaultValue={false} helperText={false} />
        <BooleanInput source="sensitive" defaultValue={false} helperText="Masked in forms, views and run logs." />
      </Stack>
      <Stack {...row}>
        <Box sx={{ flex: 1 }}>
          <DefaultInput />
        </Box>
        <TextInput source="description" helperText="Help text on the request form." multiline sx={{ flex: 2 }} />
      </Stack>
      <EnumValuesInput />
      <Stack {...row}>
        <TextInput source="validation.regex" label="Pattern (regex)" helperText="Strings: the whole value must match." sx={{ flex: 2 }} />
        <NumberInput source="validation.min" label="Min" helperText="A number's value, else the length or entries." sx={{ flex: 1 }} />
        <NumberInput source="validation.max" label="Max" helperText={false} sx={{ flex: 1 }} />
        <TextInput source="validation.message" label="Message" helperText="Shown when the rule is broken." sx={{ flex: 2 }} />
      </Stack>
    </Stack>
  );
}

/**
 * A version's variables as a structured form (docs/contract.md §2, typed variables): per variable
 * its name, type, whether it is required or sensitive, a default of its type, a description (the
 * request form's help text) and an optional rule — a regex for strings, a min/max range (the value of
 * a number, the length of a string, the entries of a list or map) — with its own message.
 */
export function VariableDeclarationsInput() {
  return (
    <Box sx={{ width: '100%', mb: 2 }} data-testid="variable-declarations">
      <Typography variant="subtitle1" component="h2">
        Variables
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        What a resource built from this version sets. The request form shows one typed input per variable; the service refuses values that
        break these rules.
      </Typography>
      <ArrayInput source="variables" label={false}>
        <SimpleFormIterator getItemLabel={(index) => `#${index + 1}`}>
          <DeclarationFields />
        </SimpleFormIterator>
      </ArrayInput>
    </Box>
  );
}
