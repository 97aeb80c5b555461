import { Box, Link as MuiLink, Typography } from '@mui/material';
import { useState } from 'react';
import { usePermissions, useRecordContext } from 'react-admin';
import { Link } from 'react-router-dom';
import { allows } from '../api/permissions';
import { RESOURCE_OF_KIND, words } from './entities';

/**
 * An audit entry as a person reads it (GET /api/audit_log: `actorName`, `verb`, `entityName`,
 * `diff`, `reason`): who, did what, to which entity, changing which fields from what to what.
 */

export interface FieldChange {
  readonly field: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

type FieldProps = { readonly label?: string; readonly sortable?: boolean };

const SHORT = 60;

/** A value in a diff: text as it is, the rest as JSON, cut at 60 characters (the whole value in the tooltip). */
function Value({ value }: { readonly value: unknown }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > SHORT ? `${text.slice(0, SHORT - 1)}…` : text;
  return <span title={short === text ? undefined : text}>{short === '' ? '""' : short}</span>;
}

/** Who acted: the user's name, a link to them for those who may read users; "system" for the service itself. */
export function AuditActorField(_props: FieldProps) {
  const record = useRecordContext();
  const { permissions } = usePermissions<readonly string[]>();
  const id = typeof record?.actorId === 'string' ? record.actorId : null;
  const name = typeof record?.actorName === 'string' ? record.actorName : null;
  if (!id)
    return (
      <Typography variant="body2" color="text.secondary" component="span">
        system
      </Typography>
    );
  const label = name ?? `user ${id.slice(0, 8)}`;
  if (!allows(permissions, 'user', 'read')) return <span title={id}>{label}</span>;
  return (
    <MuiLink component={Link} to={`/users/${id}`} title={id}>
      {label}
    </MuiLink>
  );
}

/** The action as a verb (`approved`, `created`, …), with the reason the entry gives under it. */
export function VerbField(_props: FieldProps) {
  const record = useRecordContext();
  const verb = typeof record?.verb === 'string' && record.verb !== '' ? record.verb : String(record?.action ?? '');
  const reason = typeof record?.reason === 'string' ? record.reason : null;
  return (
    <Box>
      <Typography variant="body2" component="span" sx={{ fontWeight: 600 }} data-verb={verb} title={String(record?.action ?? '')}>
        {words(verb)}
      </Typography>
      {reason && (
        <Typography variant="body2" component="p" data-testid="reason" sx={{ maxWidth: 320 }}>
          Reason: {reason}
        </Typography>
      )}
    </Box>
  );
}

/** The entity: its kind and name, linked to its page when the UI has one (the id in the tooltip). */
export function AuditEntityField(_props: FieldProps) {
  const record = useRecordContext();
  const type = typeof record?.entityType === 'string' ? record.entityType : '';
  const id = typeof record?.entityId === 'string' ? record.entityId : null;
  const name = typeof record?.entityName === 'string' && record.entityName !== '' ? record.entityName : id?.slice(0, 8);
  const target = RESOURCE_OF_KIND[type];
  return (
    <Typography variant="body2" component="span">
      {words(type)}{' '}
      {id &&
        (target ? (
          <MuiLink component={Link} to={`/${target.resource}/${id}${target.page === 'show' ? '/show' : ''}`} title={id}>
            {name}
          </MuiLink>
        ) : (
          <span title={id}>{name}</span>
        ))}
      {!id && name}
    </Typography>
  );
}

/** Changes shown before a "more" button. */
const FIRST = 5;

/** The changed fields as `field: before → after` (secrets never reach the UI: the service leaves them out). */
export function DiffField(_props: FieldProps) {
  const record = useRecordContext();
  return <DiffList diff={Array.isArray(record?.diff) ? (record.diff as FieldChange[]) : []} />;
}

/** A list of field changes, before → after (the first few, then "Show more"). */
export function DiffList({ diff }: { readonly diff: readonly FieldChange[] }) {
  const [all, setAll] = useState(false);
  if (diff.length === 0) return null;
  const shown = all ? diff : diff.slice(0, FIRST);
  return (
    <Box data-testid="diff" sx={{ fontSize: 13, maxWidth: 560, wordBreak: 'break-word' }}>
      <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {shown.map((change) => (
          <li key={change.field}>
            <Box component="span" sx={{ fontWeight: 600 }}>
              {change.field}
            </Box>
            {': '}
            {'before' in change && (
              <>
                <Box component="del" sx={{ color: 'text.secondary' }}>
                  <Value value={change.before} />
                </Box>
                {' → '}
              </>
            )}
            {'after' in change ? <Value value={change.after} /> : <em>removed</em>}
          </li>
        ))}
      </Box>
      {diff.length > FIRST && (
        <Box
          component="button"
          type="button"
          onClick={() => setAll(!all)}
          sx={{
            mt: 0.5,
            p: 0,
            border: 0,
            background: 'none',
            color: 'primary.main',
            cursor: 'pointer',
            textDecoration: 'underline',
            font: 'inherit',
          }}
        >
          {all ? 'Show fewer' : `Show ${diff.length - FIRST} more`}
        </Box>
      )}
    </Box>
  );
}
