import { NumberInput, PasswordInput, SelectInput, TextInput, required } from 'react-admin';
import { choices } from './entities';

/** One key of a provider-specific `configuration` object. */
export interface ConfigKey {
  readonly key: string;
  readonly label?: string;
  readonly required?: boolean;
  /** Write-only: shown as ******** once stored; sending ******** back keeps it. */
  readonly secret?: boolean;
  readonly number?: boolean;
  readonly multiline?: boolean;
  readonly choices?: readonly string[];
  readonly helperText?: string;
  readonly defaultValue?: unknown;
}

export const SECRET_HINT = 'Write-only. Shown as ******** once stored; leave it to keep the stored value, or type a new one.';

/** The inputs of `configuration.*` for one provider, from its key list. */
export function ConfigurationInputs({ keys, prefix = 'configuration' }: { readonly keys: readonly ConfigKey[]; readonly prefix?: string }) {
  return (
    <>
      {keys.map((k) => {
        const source = `${prefix}.${k.key}`;
        const label = k.label ?? k.key;
        const validate = k.required ? required() : undefined;
        const helperText = k.secret ? [k.helperText, SECRET_HINT].filter(Boolean).join(' ') : (k.helperText ?? false);
        if (k.choices)
          return (
            <SelectInput
              key={source}
              source={source}
              label={label}
              choices={choices(k.choices)}
              validate={validate}
              helperText={helperText}
              defaultValue={k.defaultValue}
            />
          );
        if (k.number)
          return (
            <NumberInput
              key={source}
              source={source}
              label={label}
              validate={validate}
              helperText={helperText}
              defaultValue={k.defaultValue}
            />
          );
        if (k.secret)
          return (
            <PasswordInput
              key={source}
              source={source}
              label={label}
              validate={validate}
              helperText={helperText}
              autoComplete="new-password"
              fullWidth
              multiline={false}
            />
          );
        return (
          <TextInput
            key={source}
            source={source}
            label={label}
            validate={validate}
            helperText={helperText}
            fullWidth
            multiline={k.multiline}
            defaultValue={k.defaultValue}
          />
        );
      })}
    </>
  );
}
