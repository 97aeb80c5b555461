import { Box, Typography } from '@mui/material';
import { ArrayInput, BooleanInput, NumberInput, SelectInput, SimpleFormIterator, TextInput, required, useSimpleFormIteratorItem } from 'react-admin';
import { useWatch } from 'react-hook-form';
import { JsonInput } from '../common/JsonInput';
import { choices } from '../common/entities';
import { VARIABLE_TYPES, typeOf } from './variables';

/** The default of one declaration, typed by the declaration's own type as chosen in the same row. */
function DefaultInput() {
  const { index } = useSimpleFormIteratorItem();
  const type = typeOf(String(useWatch({ name: `variables.${index}.type` }) ?? 'string'));
  const helperText = 'Optional: what the request form starts from.';
  switch (type) {
    case 'number':
      return <NumberInput source="default" label="Default" helperText={helperText} />;
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
        />
      );
    case 'list':
    case 'map':
      return <JsonInput source="default" label="Default" kind={type === 'list' ? 'array' : 'object'} emptyValue={null} helperText={`${helperText} JSON ${type === 'list' ? 'list' : 'object'}.`} />;
    default:
      return <TextInput source="default" label="Default" helperText={helperText} />;
  }
}

/**
 * A version's variables as a structured form (docs/contract.md §2, typed variables): per variable
 * its name, type, whether it is required or sensitive, a default of its type, a description (the
 * request form's help text) and an optional rule — a regex for strings, a min/max range (the value of
 * a number, the length of a string, the entries of a list or map) — with its own message.
 */
export function VariableDeclarationsInput() {
  return (
    <Box sx={{ width: '100%', mb: 2 }}>
      <Typography variant="subtitle1" component="h2">
        Variables
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        What a resource built from this version sets. The request form shows one typed input per variable; the service refuses values that break these rules.
      </Typography>
      <ArrayInput source="variables" label={false}>
        <SimpleFormIterator inline disableReordering={false} data-testid="variable-declarations">
          <TextInput source="name" validate={required()} helperText="A letter or _, then letters, digits, _ and -." />
          <SelectInput source="type" choices={choices([...VARIABLE_TYPES])} defaultValue="string" validate={required()} helperText={false} />
          <BooleanInput source="required" defaultValue={false} helperText={false} />
          <BooleanInput source="sensitive" defaultValue={false} helperText="Masked in forms, views and run logs." />
          <DefaultInput />
          <TextInput source="description" helperText="Help text on the request form." multiline />
          <TextInput source="validation.regex" label="Pattern (regex)" helperText="Strings: the whole value must match." />
          <NumberInput source="validation.min" label="Min" helperText="Number value, or length / entries." />
          <NumberInput source="validation.max" label="Max" helperText={false} />
          <TextInput source="validation.message" label="Message" helperText="Shown when the rule is broken." />
        </SimpleFormIterator>
      </ArrayInput>
    </Box>
  );
}
