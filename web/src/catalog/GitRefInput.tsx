import { Autocomplete, TextField } from '@mui/material';
import { InputHelperText, useGetOne, useInput, type RaRecord } from 'react-admin';
import { useWatch } from 'react-hook-form';

type Props = {
  readonly source: string;
  readonly label: string;
  /** The chosen source code's field that lists the refs to pick from. */
  readonly refs: 'gitTags' | 'gitBranches';
  readonly helperText?: string;
};

const stringsIn = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * A git tag or branch picked from those the chosen source code lists (`gitTags`, `gitBranches`),
 * or typed when it lists none or not yet the one wanted: a repository gains tags faster than its
 * catalog entry is edited, so the list suggests and never refuses.
 */
export function GitRefInput({ source, label, refs, helperText }: Props) {
  const sourceCodeId: unknown = useWatch({ name: 'sourceCodeId' });
  const chosen = typeof sourceCodeId === 'string' && sourceCodeId !== '';
  const { data } = useGetOne<RaRecord>('source_codes', { id: chosen ? sourceCodeId : '' }, { enabled: chosen });
  const options = stringsIn(data?.[refs]);
  const { field, fieldState, id } = useInput({ source });
  const kind = refs === 'gitTags' ? 'tags' : 'branches';
  const hint = !chosen
    ? `Choose the source code to pick from its ${kind}.`
    : options.length === 0
      ? `The source code lists no ${kind}: type one.`
      : `Pick one of the source code's ${kind}, or type another.`;
  return (
    <Autocomplete
      id={id}
      freeSolo
      options={options}
      value={typeof field.value === 'string' ? field.value : ''}
      inputValue={typeof field.value === 'string' ? field.value : ''}
      onInputChange={(_event, value) => field.onChange(value)}
      onBlur={field.onBlur}
      sx={{ width: '100%', maxWidth: 400, mb: 1 }}
      renderInput={(params) => (
        <TextField
          {...params}
          name={field.name}
          inputRef={field.ref}
          label={label}
          size="small"
          variant="filled"
          error={fieldState.invalid}
          helperText={<InputHelperText error={fieldState.error?.message} helperText={[helperText, hint].filter(Boolean).join(' ')} />}
        />
      )}
    />
  );
}
