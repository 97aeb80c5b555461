import { Box, Link as MuiLink, Typography } from '@mui/material';
import { useState } from 'react';
import { useGetMany, usePermissions, useRecordContext } from 'react-admin';
import { Link } from 'react-router-dom';
import { allows, PERMISSION_OF } from '../api/permissions';
import { LOGIN_ERROR_MESSAGES } from '../login/loginErrors';
import { RESOURCE_OF_KIND, words } from './entities';

/** Why a sign-in was refused, in words: the login page's sentences, and those of the other ways in. */
const SIGN_IN_REFUSALS: Readonly<Record<string, string>> = {
  ...LOGIN_ERROR_MESSAGES,
  invalid_credentials: 'Wrong identifier or password.',
  invalid_token: 'The developer portal token was not valid.',
  token_revoked: 'The token was issued before the account’s sessions were revoked.',
};

/** A failed sign-in's reason: the code in words (the code itself in the tooltip and for unknown codes). */
const refusalOf = (code: string): string => SIGN_IN_REFUSALS[code] ?? code;

/** Whether an entry records a refused sign-in (its actor is whoever tried, not the service). */
const isFailedSignIn = (record: Readonly<Record<string, unknown>> | undefined): boolean => record?.action === 'SignInFailed';

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
  // A write-only value (a password hash, a secret) is never shown: say that it was set.
  if (value === '********') return <em title="write-only: never shown">set (hidden)</em>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > SHORT ? `${text.slice(0, SHORT - 1)}…` : text;
  return <span title={short === text ? undefined : text}>{short === '' ? '""' : short}</span>;
}

/** The collection each reference field names (`parentIds` name the entity's own kind). */
const REFERENCES: Readonly<Record<string, string>> = {
  templateId: 'templates',
  sourceCodeId: 'source_codes',
  sourceCodeVersionId: 'source_code_versions',
  storageId: 'storages',
  workspaceId: 'workspaces',
  integrationId: 'integrations',
  integrationIds: 'integrations',
  secretIds: 'secrets',
  executorIds: 'executors',
  ownerId: 'teams',
  creatorId: 'users',
  memberIds: 'users',
  leadIds: 'users',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The ids a reference value holds (one, or a list). */
const idsIn = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((id): id is string => typeof id === 'string' && UUID.test(id));

/** Names by id, as the audit log gives them for an entry's references (as of the entry). */
type Names = Readonly<Record<string, string>>;

/** A reference by name, a link to its page (the id in the tooltip); unnamed, its short id. */
function Named({ resource, ids, names }: { readonly resource: string; readonly ids: readonly string[]; readonly names: Names }) {
  return (
    <span>
      {ids.map((id, index) => {
        const name = names[id];
        return (
          <span key={`${id}-${String(index)}`}>
            {index > 0 && ', '}
            {name ? (
              <MuiLink component={Link} to={`/${resource}/${id}/${resource === 'users' ? '' : 'show'}`.replace(/\/$/, '')} title={id}>
                {name}
              </MuiLink>
            ) : (
              <span title={id}>{id.slice(0, 8)}</span>
            )}
          </span>
        );
      })}
    </span>
  );
}

/**
 * A reference outside the audit log (a comparison of revisions, changes since approval) by the
 * names of what it names now; an entity gone or not readable keeps its short id.
 */
function CurrentNames({ resource, ids }: { readonly resource: string; readonly ids: readonly string[] }) {
  const { permissions } = usePermissions<readonly string[]>();
  // Only kinds the caller may list are looked up (a refused lookup is a console error, and no name).
  const readable = allows(permissions, PERMISSION_OF[resource] ?? resource.replace(/s$/, ''), 'read');
  const { data } = useGetMany<{ id: string; name?: string; identifier?: string; displayName?: string }>(
    resource,
    { ids: [...ids] },
    { enabled: readable && ids.length > 0 },
  );
  const names: Record<string, string> = {};
  for (const entity of data ?? []) {
    const name = entity.name ?? entity.displayName ?? entity.identifier;
    if (name) names[entity.id] = name;
  }
  return <Named resource={resource} ids={ids} names={names} />;
}

/**
 * A reference in a diff by the names of what it names: in an audit entry, the names the service
 * gives as of the entry (a template renamed since shows its name then); elsewhere, names now.
 */
function References({ resource, value, names }: { readonly resource: string; readonly value: unknown; readonly names?: Names }) {
  const ids = idsIn(value);
  if (ids.length === 0) return <Value value={value} />;
  return names ? <Named resource={resource} ids={ids} names={names} /> : <CurrentNames resource={resource} ids={ids} />;
}

type ChangeValueProps = { readonly field: string; readonly value: unknown; readonly ownKind?: string; readonly names?: Names };

/** One side of a change: a reference by name, anything else as it is. */
function ChangeValue({ field, value, ownKind, names }: ChangeValueProps) {
  const resource = field === 'parentIds' ? ownKind : REFERENCES[field];
  return resource ? <References resource={resource} value={value} names={names} /> : <Value value={value} />;
}

/** Who acted: the user's name, a link to them for those who may read users; "system" for the service itself. */
export function AuditActorField(_props: FieldProps) {
  const record = useRecordContext();
  const { permissions } = usePermissions<readonly string[]>();
  const id = typeof record?.actorId === 'string' ? record.actorId : null;
  const name = typeof record?.actorName === 'string' ? record.actorName : null;
  if (!id && isFailedSignIn(record)) {
    // Nobody was signed in: the entry names whoever tried, by what they typed.
    const tried = typeof record?.entityName === 'string' && record.entityName !== '' ? record.entityName : 'an unknown caller';
    return (
      <Typography variant="body2" component="span">
        {`someone signing in as ${tried}`}
      </Typography>
    );
  }
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
        <Typography variant="body2" component="p" data-testid="reason" sx={{ maxWidth: 320 }} title={reason}>
          Reason: {isFailedSignIn(record) ? refusalOf(reason) : reason}
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
  const kind = typeof record?.entityType === 'string' ? RESOURCE_OF_KIND[record.entityType]?.resource : undefined;
  // An entry from the audit log names its references as they were then (`names`).
  const names = typeof record?.names === 'object' && record.names !== null ? (record.names as Names) : undefined;
  return <DiffList diff={Array.isArray(record?.diff) ? (record.diff as FieldChange[]) : []} ownKind={kind} names={names} />;
}

/** A list of field changes, before → after (the first few, then "Show more"). */
export function DiffList({
  diff,
  ownKind,
  names,
}: {
  readonly diff: readonly FieldChange[];
  readonly ownKind?: string;
  readonly names?: Names;
}) {
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
                  <ChangeValue field={change.field} value={change.before} ownKind={ownKind} names={names} />
                </Box>
                {' → '}
              </>
            )}
            {'after' in change ? (
              <ChangeValue field={change.field} value={change.after} ownKind={ownKind} names={names} />
            ) : (
              <em>removed</em>
            )}
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
