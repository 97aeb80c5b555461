import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sourceCodeVersionAggregate, sourceCodeVersionIdentifier } from '../../commands/source-code-version.js';
import { sourceCodeVersionListSpec } from '../../read/list-specs/source-code-versions.js';
import { catalogReader } from '../../read/catalog.js';
import { VERSION_LIFECYCLE_STATES, type SourceCodeVersionFields } from '../../events/source-code-version.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { catalogRoutes, uuidParam } from './catalog.js';
import { descriptionField, gitRefName, labelsField, repositoryFolder } from './fields.js';


// OpenTofu identifiers: a letter or underscore, then letters, digits, underscores and dashes.
const moduleName = z
  .string()
  .max(200, 'at most 200 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must start with a letter or _ and hold only letters, digits, _ and -');

/** A list whose entries' names are unique: each repeat is an issue at `[i].name`. */
const uniquelyNamed = <T extends z.ZodType<{ name: string }>>(entry: T) =>
  z
    .array(entry)
    .max(1000, 'at most 1000 entries')
    .superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach(({ name }, index) => {
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate name "${name}"` });
        seen.add(name);
      });
    });

const variables = uniquelyNamed(
  z.strictObject({
    name: moduleName,
    type: z.string().trim().min(1, 'must not be empty').max(1000, 'at most 1000 characters').default('string'),
    required: z.boolean().default(false),
    // Any JSON value; absent means no default, kept as null so every variable has the same keys.
    default: z
      .unknown()
      .optional()
      .transform((value) => (value === undefined ? null : value)),
    description: descriptionField.default(''),
    sensitive: z.boolean().default(false),
  }),
);

const outputs = uniquelyNamed(z.strictObject({ name: moduleName, description: descriptionField.default(''), sensitive: z.boolean().default(false) }));

/** POST /api/source_code_versions body. */
export const createBody = z.strictObject({
  sourceCodeVersion: gitRefName.nullable().default(null),
  sourceCodeBranch: gitRefName.nullable().default(null),
  sourceCodeFolder: repositoryFolder,
  // Derived from the folder and the tag or branch; accepted only to be checked (the decider answers 422).
  identifier: z.string().optional(),
  variables: variables.default([]),
  outputs: outputs.default([]),
  lifecycleState: z.enum(VERSION_LIFECYCLE_STATES).default('preview'),
  templateId: uuidParam,
  sourceCodeId: uuidParam,
  description: descriptionField.default(''),
  labels: labelsField.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});

/** PATCH /api/source_code_versions/{id} body. */
export const patchBody = z
  .strictObject({
    sourceCodeVersion: gitRefName.nullable(),
    sourceCodeBranch: gitRefName.nullable(),
    sourceCodeFolder: repositoryFolder,
    identifier: z.string(),
    variables,
    outputs,
    lifecycleState: z.enum(VERSION_LIFECYCLE_STATES),
    // Immutable: sent only to be told so (the decider answers 422 when one differs).
    templateId: uuidParam,
    sourceCodeId: uuidParam,
    description: descriptionField,
    labels: labelsField,
  })
  .partial();

function parseCreate(body: unknown): SourceCodeVersionFields & { status: 'enabled' | 'disabled' } {
  const { identifier, ...data } = parseInput(createBody, body, 'body');
  return { ...data, identifier: identifier ?? sourceCodeVersionIdentifier(data) };
}

/** Re-derives the identifier when the folder, tag or branch changes (from the merged fields). */
function parsePatch(body: unknown, current: SourceCodeVersionFields): Partial<SourceCodeVersionFields> {
  const { identifier, ...changes } = parseInput(patchBody, body, 'body');
  const moved = changes.sourceCodeFolder !== undefined || changes.sourceCodeVersion !== undefined || changes.sourceCodeBranch !== undefined;
  const derived = identifier ?? (moved ? sourceCodeVersionIdentifier({ ...current, ...changes }) : undefined);
  return derived === undefined ? changes : { ...changes, identifier: derived };
}

/** REST for source code versions (docs/contract.md §2–§3): `/api/source_code_versions`. */
export function sourceCodeVersionsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    plural: 'source_code_versions',
    resource: 'source_code_version',
    projection: 'source_code_versions',
    aggregate: sourceCodeVersionAggregate,
    listSpec: sourceCodeVersionListSpec,
    reader: catalogReader('source_code_versions'),
    parseCreate,
    parsePatch,
  });
}
