import { Alert } from '@mui/material';
import { useLayoutEffect, useRef, useState } from 'react';
import { useFormState, type FieldErrors } from 'react-hook-form';

interface Issue {
  readonly path: string;
  readonly message: string;
}

/** The server's field errors in the form state (react-admin sets them from a refused save), by path. */
function serverIssues(errors: FieldErrors, prefix = ''): Issue[] {
  return Object.entries(errors).flatMap(([key, value]): Issue[] => {
    if (key === 'root' && prefix === '') return [];
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const error: unknown = value;
    if (typeof error !== 'object' || error === null) return [];
    // A leaf error has a type and a message; anything else is a level of nested fields.
    if ('type' in error && 'message' in error && typeof error.message === 'string')
      return error.message === '' ? [] : [{ path, message: error.message }];
    return serverIssues(error, path);
  });
}

/** A path the form has no input for, in words: `configuration.clientSecret` → `configuration › client secret`. */
const wordsOf = (path: string): string =>
  path
    .split('.')
    .map((part) => part.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())
    .join(' › ');

/**
 * The messages of a refused save for fields the form has no input for (docs/web-ui.md, each error
 * said once): a field's message sits under its input and nowhere else, the notification says how
 * many fields need a change, and this names only what neither of them shows.
 */
export function ServerErrors() {
  const { errors, submitCount } = useFormState();
  const anchor = useRef<HTMLDivElement>(null);
  const refused = (errors.root as { serverError?: unknown } | undefined)?.serverError !== undefined;
  const issues = refused ? serverIssues(errors) : [];
  const [unshown, setUnshown] = useState<readonly Issue[]>([]);
  const key = issues.map((issue) => `${issue.path}\u0000${issue.message}`).join('\u0001');
  // Which issues have an input on screen is a question for the page, once it has rendered them.
  useLayoutEffect(() => {
    const form = anchor.current?.closest('form');
    setUnshown(issues.filter((issue) => !form?.querySelector(`[name="${CSS.escape(issue.path)}"], [id="${CSS.escape(issue.path)}"]`)));
    // `key` stands for the issues (a new array on every render).
  }, [key, submitCount]);
  return (
    <div ref={anchor} style={{ width: '100%' }}>
      {refused && unshown.length > 0 && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          Also refused, for fields this form does not show:
          <ul style={{ margin: '4px 0 0', paddingLeft: 20 }}>
            {unshown.map((issue) => (
              <li key={issue.path}>{`${wordsOf(issue.path)}: ${issue.message}`}</li>
            ))}
          </ul>
        </Alert>
      )}
    </div>
  );
}
