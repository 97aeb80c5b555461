import { Alert, Box, LinearProgress, Typography } from '@mui/material';
import {
  BooleanInput,
  NumberInput,
  PasswordInput,
  SelectInput,
  TextArrayInput,
  TextInput,
  useDataProvider,
  useGetOne,
  type RaRecord,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { JsonInput } from '../common/JsonInput';
import { isTextList, mustBeGiven, toValueMap, toVariableList, typeOf, validatorOf, type VariableDeclaration } from './variables';

/** A declaration's help: its description, its type and whether it must be given. */
function helpOf(declaration: VariableDeclaration): string {
  const parts = [declaration.description.trim(), typeOf(declaration.type) ?? declaration.type];
  if (mustBeGiven(declaration)) parts.push('required');
  else if (declaration.default !== null && declaration.default !== undefined && !declaration.sensitive)
    parts.push(`default ${JSON.stringify(declaration.default)}`);
  if (declaration.sensitive) parts.push('sensitive: write-only, ******** keeps the stored value');
  return parts.filter((part) => part !== '').join(' · ');
}

/** One typed input for one declared variable, at `variables.<name>` (where a 422 names it). */
function VariableInput({ declaration }: { readonly declaration: VariableDeclaration }) {
  const source = `variables.${declaration.name}`;
  const common = {
    source,
    label: declaration.name,
    helperText: helpOf(declaration),
    validate: validatorOf(declaration),
    // A sensitive default would be shown in the clear: the form starts it empty (the module's default applies).
    defaultValue: declaration.sensitive || declaration.default === null ? undefined : declaration.default,
  };
  switch (typeOf(declaration.type)) {
    case 'number':
      return <NumberInput {...common} fullWidth />;
    case 'bool':
      return <BooleanInput {...common} />;
    case 'enum':
      return (
        <SelectInput
          {...common}
          choices={(declaration.validation?.values ?? []).map((value) => ({ id: value, name: value }))}
          emptyText={mustBeGiven(declaration) ? undefined : 'none (the default applies)'}
          fullWidth
        />
      );
    case 'list':
    case 'map':
      // A list of text is typed as chips; numbers and structures as JSON.
      return isTextList(declaration.type) ? (
        <TextArrayInput
          {...common}
          defaultValue={Array.isArray(common.defaultValue) ? (common.defaultValue as string[]) : undefined}
          helperText={`${common.helperText} · type a value and press Enter`}
          // No chips is no value (the declared default applies), not an empty list.
          parse={(value: unknown) => (Array.isArray(value) && value.length === 0 ? null : value)}
          fullWidth
        />
      ) : (
        <JsonInput
          {...common}
          validate={[common.validate]}
          kind={typeOf(declaration.type) === 'list' ? 'array' : 'object'}
          emptyValue={null}
        />
      );
    default:
      return declaration.sensitive ? (
        <PasswordInput {...common} autoComplete="new-password" fullWidth />
      ) : (
        <TextInput {...common} fullWidth />
      );
  }
}

/**
 * The request form's variables (docs/contract.md §2, typed variables): one typed input per variable
 * the chosen source code version declares, started at its default, with its description as help;
 * sensitive ones masked. Without a version there is nothing to declare them.
 */
export function TypedVariablesInput() {
  const versionId: unknown = useWatch({ name: 'sourceCodeVersionId' });
  const chosen = typeof versionId === 'string' && versionId !== '';
  const {
    data: version,
    isPending,
    error,
  } = useGetOne<RaRecord>('source_code_versions', { id: chosen ? versionId : '' }, { enabled: chosen });
  let body;
  if (!chosen) body = <Typography color="text.secondary">Choose a source code version to set the variables it declares.</Typography>;
  else if (error) body = <Alert severity="warning">The version&apos;s variables could not be read: {error.message}</Alert>;
  else if (isPending) body = <LinearProgress aria-label="Loading the version's variables" />;
  else {
    const declared = (version.variables ?? []) as VariableDeclaration[];
    body =
      declared.length === 0 ? (
        <Typography color="text.secondary">This version declares no variables.</Typography>
      ) : (
        declared.map((declaration) => <VariableInput key={declaration.name} declaration={declaration} />)
      );
  }
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mb: 2, width: '100%' }} data-testid="typed-variables">
      <Typography component="legend" variant="subtitle1" sx={{ mb: 1 }}>
        Variables
      </Typography>
      {body}
    </Box>
  );
}

const versionOf = (record: Readonly<Record<string, unknown>>): string | undefined =>
  typeof record.sourceCodeVersionId === 'string' && record.sourceCodeVersionId !== '' ? record.sourceCodeVersionId : undefined;

/**
 * A resource as the edit form holds it: with a version, its variables as values by name (one typed
 * input each); without one (abstract templates) as the API's list, which the form leaves alone.
 */
export const withVariableValues = <R extends RaRecord>(record: R): R =>
  versionOf(record) === undefined ? record : { ...record, variables: toValueMap(record.variables) };

/**
 * The request and edit forms' save: the values by name become the API's list, each marked
 * sensitive as its version declares (read again: the form may have switched versions).
 */
export function useTypedVariablesTransform(): (data: Record<string, unknown>) => Promise<Record<string, unknown>> {
  const dataProvider = useDataProvider();
  return async (data) => {
    const versionId = versionOf(data);
    if (versionId === undefined) return Array.isArray(data.variables) ? data : { ...data, variables: [] };
    const { data: version } = await dataProvider.getOne<RaRecord>('source_code_versions', { id: versionId });
    return { ...data, variables: toVariableList(data.variables, (version.variables ?? []) as VariableDeclaration[]) };
  };
}
