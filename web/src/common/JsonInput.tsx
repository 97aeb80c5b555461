import { TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { InputHelperText, useInput, type Validator } from 'react-admin';

/** What the input holds while its text is not valid JSON (refused by its validator). */
class InvalidJson {
  constructor(readonly text: string) {}
}

const validJson: Validator = (value: unknown) => (value instanceof InvalidJson ? 'must be valid JSON' : undefined);

const show = (value: unknown): string => (value === undefined || value === null || value === '' ? '' : JSON.stringify(value, null, 2));

/**
 * A JSON value edited as text: the form gets the parsed value as soon as the text parses, and an
 * error next to the field while it does not.
 */
export function JsonInput({
  source,
  label,
  helperText,
  kind = 'object',
  validate = [],
  defaultValue,
  emptyValue,
}: {
  readonly source: string;
  readonly label?: string;
  readonly helperText?: string;
  readonly kind?: 'object' | 'array';
  /** Checks of the parsed value, after it parsed. */
  readonly validate?: readonly Validator[];
  readonly defaultValue?: unknown;
  /** What an empty text stands for (default: an empty object or list). */
  readonly emptyValue?: unknown;
}) {
  const { field, fieldState, id } = useInput({ source, defaultValue, validate: [validJson, ...validate] });
  const [text, setText] = useState(() => (field.value instanceof InvalidJson ? field.value.text : show(field.value)));
  // A reset or a record loaded after mount replaces the text; the user's own edits do not.
  useEffect(() => {
    if (field.value instanceof InvalidJson) return;
    setText((current) => {
      try {
        if (current.trim() !== '' && JSON.stringify(JSON.parse(current)) === JSON.stringify(field.value)) return current;
      } catch {
        // The text was invalid: take the form's value.
      }
      return show(field.value);
    });
  }, [field.value]);
  return (
    <TextField
      id={id}
      name={field.name}
      label={label ?? source}
      value={text}
      multiline
      minRows={3}
      fullWidth
      onBlur={field.onBlur}
      onChange={(event) => {
        const next = event.target.value;
        setText(next);
        if (next.trim() === '') return field.onChange(emptyValue !== undefined ? emptyValue : kind === 'array' ? [] : {});
        try {
          field.onChange(JSON.parse(next));
        } catch {
          field.onChange(new InvalidJson(next));
        }
      }}
      error={fieldState.invalid}
      helperText={<InputHelperText error={fieldState.error?.message} helperText={helperText ?? `JSON ${kind}`} />}
      slotProps={{ input: { sx: { fontFamily: 'monospace', fontSize: 13 } } }}
      sx={{ mb: 2 }}
    />
  );
}
