import { LIFECYCLE_ACTIONS, type LifecycleAction } from '../model/lifecycle.js';

/**
 * What turns an event into a line a person reads (docs/contract.md §7): the action as a verb, the
 * fields it changed as before → after, the reason when the event gives one, and the entity's name.
 * Pure functions over redacted event data: the audit projection (audit-log.ts) keeps each entity's
 * fields as of its last event so the next one can say what it was before.
 */

/** One changed field. `before` is absent for a value that is new, `after` for one that went away. */
export interface FieldChange {
  /** The field, or `field.key` one level into an object (`configuration.awsRegion`). */
  readonly field: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** An entity's fields as the audit log knows them (redacted: secrets are `********`). */
export type KnownFields = Readonly<Record<string, unknown>>;

/** What one event says, in words. */
export interface HistoryStep {
  readonly verb: string;
  readonly diff: readonly FieldChange[];
  readonly reason: string | null;
  /** The entity's fields after the event (`undefined` for entity types whose facts are not state). */
  readonly fields: KnownFields | undefined;
  /** The entity's name after the event, when its fields hold one. */
  readonly name: string | null;
}

/** Past tense of each lifecycle action: `approve` → `approved`; destroy and recreate are requests. */
export const LIFECYCLE_VERBS: Readonly<Record<LifecycleAction, string>> = {
  approve: 'approved',
  reject: 'rejected',
  execute: 'executed',
  start: 'started',
  succeed: 'succeeded',
  fail: 'failed',
  destroy: 'destroy_requested',
  recreate: 'recreate_requested',
  delete: 'deleted',
  cancel: 'cancelled',
};

/** The verb of a transition no caller took: a change to what was approved asked for approval again. */
const CHANGE_VERB = 'approval_requested_again';

/** Verbs of the hand-written aggregates' events whose names do not end in a plain suffix. */
const NAMED_VERBS: Readonly<Record<string, string>> = {
  UserPasswordChanged: 'password_changed',
  UserPasswordRehashed: 'password_rehashed',
  UserDeactivated: 'deactivated',
  UserReactivated: 'reactivated',
  UserSessionsRevoked: 'sessions_revoked',
  UserGroupsObserved: 'groups_changed',
  EntityAccessGranted: 'access_granted',
  EntityAccessRevoked: 'access_revoked',
  SessionStarted: 'session_started',
  SessionRefreshed: 'session_refreshed',
  SessionEnded: 'session_ended',
  SignInSucceeded: 'signed_in',
  SignInFailed: 'sign_in_failed',
  SsoLoginStarted: 'sso_login_started',
  SsoLoginCompleted: 'sso_login_completed',
  PersonalAccessTokenRevoked: 'revoked',
  FavoriteAdded: 'starred',
  FavoriteRemoved: 'unstarred',
};

const SUFFIX_VERBS: readonly (readonly [string, string])[] = [
  ['Created', 'created'],
  ['Updated', 'updated'],
  ['Enabled', 'enabled'],
  ['Disabled', 'disabled'],
  ['Deleted', 'deleted'],
];

const isLifecycleAction = (value: unknown): value is LifecycleAction =>
  typeof value === 'string' && (LIFECYCLE_ACTIONS as readonly string[]).includes(value);

/** `TestSecretSet` → `test_secret_set`: the fallback for an event type no rule names. */
const snakeCase = (type: string): string => type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The verb of an event: `TemplateCreated` → `created`, `ResourceTransitioned` with action `approve`
 * → `approved`, `SignInFailed` → `sign_in_failed`. Verbs are snake_case words (lists filter on them).
 */
export function verbOf(type: string, data: Readonly<Record<string, unknown>>): string {
  const named = NAMED_VERBS[type];
  if (named !== undefined) return named;
  if (type.endsWith('Transitioned') && isLifecycleAction(data.action)) return LIFECYCLE_VERBS[data.action];
  if (type.endsWith('Transitioned') && data.action === 'change') return CHANGE_VERB;
  for (const [suffix, verb] of SUFFIX_VERBS) if (type.endsWith(suffix)) return verb;
  return snakeCase(type);
}

/** Entity types whose events are facts, not changes of one state (each sign-in, each star stands alone). */
const FACT_ENTITY_TYPES: ReadonlySet<string> = new Set(['sign_in', 'sso_login', 'favorites']);

/** Whether the audit log keeps the entity's fields between events (entities with an id that are not facts). */
export const tracksFields = (entityType: string, entityId: string | null): boolean =>
  entityId !== null && !FACT_ENTITY_TYPES.has(entityType);

/**
 * Keys of event data that are not fields of the entity: the id, what the verb and reason columns show, and which fields a change sent back
 * to approval.
 */
const NOT_FIELDS: ReadonlySet<string> = new Set(['id', 'action', 'reason', 'authority', 'changedFields']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equal as JSON values, whatever the key order (jsonb does not keep it). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
  }
  return false;
}

/** Nothing worth a line on a new entity: null, '', [] and {}. */
const isEmpty = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (isPlainObject(value) && Object.keys(value).length === 0);

/**
 * The fields `next` changes in `before`, by field name, one level into objects (`configuration.awsRegion`); deeper
 * values compare whole. Secrets are already `********` on both sides, so a changed secret compares
 * equal and is not listed: the log never learns whether a write-only value changed.
 */
export function diffFields(before: KnownFields | undefined, next: KnownFields): FieldChange[] {
  const changes: FieldChange[] = [];
  const push = (field: string, was: unknown, now: unknown): void => {
    if (sameJson(was, now)) return;
    // A new entity's empty defaults say nothing.
    if (was === undefined && isEmpty(now)) return;
    changes.push({ field, ...(was !== undefined && { before: was }), ...(now !== undefined && { after: now }) });
  };
  for (const [key, now] of Object.entries(next)) {
    if (NOT_FIELDS.has(key)) continue;
    const was = before?.[key];
    if (isPlainObject(now) && (was === undefined || isPlainObject(was))) {
      const inner = was ?? {};
      for (const sub of new Set([...Object.keys(inner), ...Object.keys(now)])) push(`${key}.${sub}`, inner[sub], now[sub]);
    } else {
      push(key, was, now);
    }
  }
  // Stores differ in the key order they keep (jsonb sorts keys its own way): the diff is sorted by field.
  return changes.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** The fields an event sets: what it carries, or what its type implies (enable, deactivate, …). */
function fieldsSetBy(type: string, data: Readonly<Record<string, unknown>>, before: KnownFields | undefined): KnownFields {
  if (type.endsWith('Updated') && isPlainObject(data.changes)) return data.changes;
  // Auth providers keep `enabled` (a boolean); catalog entities a `status`.
  const flag = typeof before?.enabled === 'boolean';
  if (type.endsWith('Enabled')) return flag ? { enabled: true } : { status: 'enabled' };
  if (type.endsWith('Disabled')) return flag ? { enabled: false } : { status: 'disabled' };
  if (type === 'UserDeactivated') return { deactivated: true };
  if (type === 'UserReactivated') return { deactivated: false };
  if (type.endsWith('Deleted')) return {};
  return data;
}

/** Which field names an entity, in order of preference. */
export const NAME_FIELDS = ['name', 'displayName', 'identifier', 'sourceCodeUrl'] as const;

/** The entity's name from its fields: `name`, else `displayName`, `identifier`, `sourceCodeUrl`. */
export function nameOf(fields: KnownFields | undefined): string | null {
  for (const key of NAME_FIELDS) {
    const value = fields?.[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * One event in words. `before` is the entity's fields as of its previous event (undefined for the
 * first one, and always for facts such as sign-ins, which are shown as they are).
 */
export function historyStep(
  type: string,
  data: Readonly<Record<string, unknown>>,
  before: KnownFields | undefined,
  tracked: boolean,
): HistoryStep {
  const reason = typeof data.reason === 'string' && data.reason !== '' ? data.reason : null;
  const verb = verbOf(type, data);
  const set = fieldsSetBy(type, data, before);
  const diff = diffFields(tracked ? before : undefined, set);
  if (!tracked) return { verb, diff, reason, fields: undefined, name: nameOf(data) };
  const fields: Record<string, unknown> = { ...before };
  for (const [key, value] of Object.entries(set)) if (!NOT_FIELDS.has(key)) fields[key] = value;
  return { verb, diff, reason, fields, name: nameOf(fields) };
}

const SHORT = 80;

/** A value in a line: strings as they are, the rest as JSON, cut at 80 characters. */
export function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : ((JSON.stringify(value) as string | undefined) ?? String(value));
  return text.length > SHORT ? `${text.slice(0, SHORT - 1)}…` : text;
}

/** A diff as one line: `status: approval_pending → ready; labels: → ["web"]`. */
export function diffText(diff: readonly FieldChange[]): string {
  return diff
    .map((change) => {
      const after = 'after' in change ? shortValue(change.after) : '(removed)';
      return 'before' in change ? `${change.field}: ${shortValue(change.before)} → ${after}` : `${change.field}: ${after}`;
    })
    .join('; ');
}
