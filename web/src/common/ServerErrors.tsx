import { Alert } from '@mui/material';
import { useFormState } from 'react-hook-form';

/**
 * The problem a save was refused with, inside the form: fields the form shows get their own
 * message; this repeats the whole answer, so fields it does not show are named too.
 */
export function ServerErrors() {
  const { errors } = useFormState();
  const root = errors.root as { serverError?: { message?: string } } | undefined;
  const message = root?.serverError?.message;
  if (!message) return null;
  return (
    <Alert severity="error" role="alert" sx={{ mb: 2, width: '100%' }}>
      {message}
    </Alert>
  );
}
