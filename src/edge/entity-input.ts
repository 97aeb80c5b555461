import type { FieldIssue } from '../errors.js';
import { REDACTED, restoreRedacted } from '../events/secret-fields.js';
import {
  createBodySchema,
  patchBodySchema,
  type CreateBody,
  type EntityDeclaration,
  type StoredFields,
  type WritableFields,
} from '../model/entity.js';
import { invalidInput, parseInput, zodIssues } from '../validation.js';

/** How a declared entity's create and update input is read, for every edge (REST today). */
export interface EntityInput<E extends EntityDeclaration> {
  /** A create body: the declared schema, then write-only masks and provider-specific shapes. */
  parseCreate(body: unknown): CreateBody<E>;
  /** An update body, read against the entity's current fields (a mask keeps what is stored). */
  parsePatch(body: unknown, current: StoredFields<E>): Partial<WritableFields<E>>;
}

/** The value at a `.`-separated path (`configuration.apiUrl`). */
const valueAt = (holder: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined),
      holder,
    );

/**
 * A stored secret kept (`********`) by an update that moves where secrets are sent: refused, naming
 * each such secret, so that a token given for one address is never sent to another by someone who
 * never knew it.
 */
function unboundSecrets(
  secrets: NonNullable<EntityDeclaration['secrets']>,
  input: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>>,
): FieldIssue[] {
  const moved = (secrets.boundTo ?? []).filter(
    (path) => valueAt(input, path) !== valueAt(current, path) && valueAt(input, path.split('.')[0] ?? '') !== undefined,
  );
  if (moved.length === 0) return [];
  return secrets.paths
    .filter((path) => !path.includes('[]') && valueAt(input, path) === REDACTED)
    .map((field) => ({
      field,
      message: `must be sent again (not ********) when ${moved.join(', ')} changes: a stored secret never goes to a new address`,
    }));
}

/**
 * What the declared schema cannot check alone, because it depends on what else is written or stored:
 * - a write-only value sent back as `********` keeps the stored one (nothing stored: a 400 naming it);
 * - a field with `variants` is validated by the schema its `by` field selects (provider-specific
 *   configuration). On a PATCH an immutable field is left to the write model, which says it is immutable.
 */
function refine(
  entity: EntityDeclaration,
  input: Record<string, unknown>,
  current: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const errors: FieldIssue[] = [];
  let out = { ...input };
  if (entity.secrets?.boundTo && current !== undefined) errors.push(...unboundSecrets(entity.secrets, input, current));
  if (entity.secrets) {
    // Paths the input leaves out are left alone, so the whole input goes through.
    const { restored, errors: masked } = restoreRedacted(out, current, entity.secrets.paths, {
      message: entity.secrets.restoreMessage,
      ...(entity.secrets.when && { when: entity.secrets.when }),
    });
    out = restored;
    errors.push(...masked);
  }
  const merged = { ...current, ...out };
  // A field whose own value was refused selects nothing: its dependants are not judged by it.
  const refused = new Set<string>();
  for (const [name, field] of Object.entries(entity.fields)) {
    if (!('variants' in field) || !field.variants || out[name] === undefined) continue;
    if (current !== undefined && field.immutable) continue;
    const { by, schemas } = field.variants;
    if (refused.has(by)) continue;
    // An immutable selector is read from what is stored: a PATCH changing it is the write model's 422.
    const selector = current !== undefined && entity.fields[by]?.immutable ? current[by] : merged[by];
    const schema = schemas[String(selector)];
    if (!schema) continue;
    const parsed = schema.safeParse(out[name]);
    if (parsed.success) out[name] = parsed.data;
    else {
      refused.add(name);
      errors.push(...zodIssues(parsed.error, name));
    }
  }
  if (errors.length > 0) throw invalidInput('body', errors);
  return out;
}

/** The create and update input of a declared entity (docs/adding-a-field.md). */
export function entityInput<E extends EntityDeclaration>(entity: E): EntityInput<E> {
  const create = createBodySchema(entity);
  const patch = patchBodySchema(entity);
  return {
    parseCreate: (body) => refine(entity, parseInput(create, body === undefined ? {} : body, 'body'), undefined) as CreateBody<E>,
    parsePatch: (body, current) =>
      refine(entity, parseInput(patch, body === undefined ? {} : body, 'body'), current) as Partial<WritableFields<E>>,
  };
}
