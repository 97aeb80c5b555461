import { z } from 'zod';
import type { IntegrationKindRule } from './entity.js';

/** Input validators several declarations share, so their rules and messages agree. */

/** Trimmed text that must not be empty, at most `max` characters. */
export const nonEmpty = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);

/** An entity's display name (unique per entity kind, or per scope). */
export const entityName = nonEmpty(200);

/**
 * The `name` most catalog entities have: required, searched, and unique across the entity's live
 * rows whatever its case, under the reservation key `key` (e.g. `integration-name`).
 */
export const uniqueNameField = (key: string, noun: string) =>
  ({
    kind: 'text',
    description: 'Unique name.',
    input: entityName,
    required: true,
    search: true,
    unique: { key, caseInsensitive: true, message: (name: string) => `${noun} named "${name}" already exists` },
  }) as const;

/**
 * The `integrationId` of an entity that works through an integration: the GraphQL `integration`
 * relation, and the kind of integration it must be (a declaration adds `required`, or `nullable`).
 */
export const integrationIdField = <R extends IntegrationKindRule>(description: string, integrationKind: R) =>
  ({
    kind: 'id',
    description,
    target: 'integration',
    integrationKind,
    relation: { name: 'integration', type: 'Integration', description },
  }) as const;

/** An http(s) URL. */
export const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

// git check-ref-format, simplified: no space, control or ~^:?*[\ characters, no "..", "//", "@{",
// no component starting with "." or ending with ".lock", not starting with "-" or ending with "/" or ".".
const GIT_REF = /^(?![./-])(?!.*(?:\.\.|\/\/|@\{|\/\.|\.lock(?:\/|$)))(?!.*[/.]$)[^\s~^:?*[\\\p{Cc}]+$/u;

/** A git tag or branch name. */
export const gitRefName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(250, 'at most 250 characters')
  .regex(GIT_REF, 'must be a valid git tag or branch name');

/** `modules//vpc/./` → `modules/vpc`; the repository root is `.`. */
const normaliseFolder = (path: string): string =>
  path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/') || '.';

/** A folder inside a repository: relative, `/`-separated, never climbing out with `..`. */
export const repositoryFolder = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(1000, 'at most 1000 characters')
  .refine((path) => !path.startsWith('/'), 'must be a path relative to the repository root')
  .refine((path) => !path.includes('\\'), 'must separate folders with /')
  .refine((path) => !path.split('/').includes('..'), 'must not contain ..')
  .transform(normaliseFolder);

/** A list whose entries' names are unique: each repeat is an issue at `[i].name` saying `duplicate <what> "x"`. */
export const uniquelyNamed = <T extends z.ZodType<{ name: string }>>(entry: T, max: number, tooMany: string, what: string) =>
  z
    .array(entry)
    .max(max, tooMany)
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach(({ name }, index) => {
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate ${what} "${name}"` });
        seen.add(name);
      });
    });

/**
 * The `ownerId` every catalog entity has (docs/contract.md §6, ownership): the team whose members may
 * change it and whose leads administer it. Entities created before owners existed have none (their
 * created events are upcast with `null`), so `addedIn` is the entity's next created-event version.
 */
export const ownerIdField = <const N extends number>(addedIn: N) =>
  ({
    kind: 'id',
    description: 'The team that owns it: its members may change it, its leads administer it. Null when no team owns it.',
    target: 'team',
    nullable: true,
    default: null,
    addedIn,
    relation: { name: 'owner', type: 'Team', description: 'The team that owns it.' },
  }) as const;
