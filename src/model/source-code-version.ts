import { z } from 'zod';
import { COMMON_WRITABLE, type EntityDeclaration } from './entity.js';
import { gitRefName, repositoryFolder, uniquelyNamed, ownerIdField } from './inputs.js';
import { validationInput, valueProblem } from './variable-values.js';

/** Where a version stands in its life (docs/contract.md §2); new versions start as `preview`. */
export const VERSION_LIFECYCLE_STATES = ['preview', 'active', 'deprecated', 'archived'] as const;

import { VARIABLE_TYPES, sourceCodeVariable } from './variables.js';

export {
  VARIABLE_TYPES,
  sourceCodeVariable,
  variableValidation,
  type SourceCodeVariable,
  type VariableType,
  type VariableValidation,
} from './variables.js';

/** One output of an OpenTofu module, as stored. */
export const sourceCodeOutput = z.object({ name: z.string(), description: z.string(), sensitive: z.boolean() });

/** One output a source code version declares. */
export type SourceCodeOutput = z.infer<typeof sourceCodeOutput>;

// OpenTofu identifiers: a letter or underscore, then letters, digits, underscores and dashes.
const moduleName = z
  .string()
  .max(200, 'at most 200 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must start with a letter or _ and hold only letters, digits, _ and -');

const variablesInput = uniquelyNamed(
  z
    .strictObject({
      name: moduleName,
      type: z.enum(VARIABLE_TYPES, { message: `must be one of ${VARIABLE_TYPES.join(', ')}` }).default('string'),
      required: z.boolean().default(false),
      // Any JSON value of the type; absent means no default, kept as null so every variable has the same keys.
      default: z
        .unknown()
        .optional()
        .transform((value) => (value === undefined ? null : value)),
      description: COMMON_WRITABLE.description.default(''),
      sensitive: z.boolean().default(false),
      validation: validationInput.optional(),
    })
    .superRefine((variable, ctx) => {
      const { type, validation } = variable;
      if (validation?.regex !== undefined && type !== 'string') {
        ctx.addIssue({ code: 'custom', path: ['validation', 'regex'], message: 'applies to string variables only' });
      }
      // An enum is its values: they are declared with it, and with nothing else.
      if (type === 'enum' && validation?.values === undefined) {
        ctx.addIssue({ code: 'custom', path: ['validation', 'values'], message: 'an enum variable must list its values' });
      }
      if (validation?.values !== undefined && type !== 'enum') {
        ctx.addIssue({ code: 'custom', path: ['validation', 'values'], message: 'applies to enum variables only' });
      }
      // A default must itself pass: the request form starts from it.
      if (variable.default !== null) {
        const problem = valueProblem(variable, variable.default);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['default'], message: `the default ${problem}` });
      }
    }),
  1000,
  'at most 1000 entries',
  'name',
);

const outputsInput = uniquelyNamed(
  z.strictObject({ name: moduleName, description: COMMON_WRITABLE.description.default(''), sensitive: z.boolean().default(false) }),
  1000,
  'at most 1000 entries',
  'name',
);

/**
 * `folder:tagOrBranch`. Git forbids `:` in tag and branch names, so the last `:` always separates
 * the two, whatever the folder holds.
 */
export const sourceCodeVersionIdentifier = (f: {
  readonly sourceCodeFolder: string;
  readonly sourceCodeVersion?: string | null;
  readonly sourceCodeBranch?: string | null;
}): string => `${f.sourceCodeFolder}:${f.sourceCodeVersion ?? f.sourceCodeBranch ?? ''}`;

/**
 * Source code versions: a folder of a source code at a git tag or branch, offered as the code behind
 * a template (docs/contract.md §2). `identifier` is derived (`folder:tagOrBranch`); the source code
 * and template are fixed at creation, as resources built from a version rely on both.
 */
export const sourceCodeVersionEntity = {
  name: 'SourceCodeVersion',
  kind: 'source_code_version',
  plural: 'source_code_versions',
  table: 'source_code_versions',
  description: 'A folder of a source code at a git tag or branch, offered as the code behind a template.',
  fields: {
    sourceCodeVersion: {
      kind: 'text',
      description: 'The git tag (null when a branch is used).',
      input: gitRefName,
      nullable: true,
      default: null,
    },
    sourceCodeBranch: {
      kind: 'text',
      description: 'The git branch (null when a tag is used).',
      input: gitRefName,
      nullable: true,
      default: null,
    },
    sourceCodeFolder: { kind: 'text', description: 'The folder inside the repository.', input: repositoryFolder, required: true },
    identifier: {
      kind: 'text',
      description: '`folder:tagOrBranch`.',
      input: z.string(),
      search: true,
      unique: {
        key: 'source-code-version',
        caseInsensitive: false,
        scope: 'sourceCodeId',
        message: (identifier: string, values: Readonly<Record<string, unknown>>) =>
          `source code ${String(values.sourceCodeId)} already has a version "${identifier}"`,
      },
    },
    variables: {
      kind: 'json',
      description:
        'Input variables: a list of `{name, type, required, default, description, sensitive, validation}`; `type` is `string`, ' +
        "`number`, `bool`, `list`, `map` or `enum`, `validation` an optional `{regex, values, min, max, message}` (`values`: an enum's " +
        'choices).',
      input: variablesInput,
      stored: z.array(sourceCodeVariable),
      default: [],
    },
    outputs: {
      kind: 'json',
      description: 'Declared outputs: a list.',
      input: outputsInput,
      stored: z.array(sourceCodeOutput),
      default: [],
    },
    lifecycleState: {
      kind: 'enum',
      values: VERSION_LIFECYCLE_STATES,
      description: '`preview`, `active`, `deprecated` or `archived`.',
      default: 'preview',
    },
    templateId: {
      kind: 'id',
      description: 'The template this version implements.',
      target: 'template',
      required: true,
      immutable: true,
      relation: { name: 'template', type: 'Template', description: 'The template this version implements.' },
    },
    sourceCodeId: {
      kind: 'id',
      description: 'The repository the code comes from.',
      target: 'source_code',
      required: true,
      immutable: true,
      relation: { name: 'sourceCode', type: 'SourceCode', description: 'The repository the code comes from.' },
    },
    ownerId: ownerIdField(2),
    breakingChanges: {
      kind: 'text',
      description: 'What this version breaks for resources moving to it (free text), or null when nothing.',
      input: z.string().trim().max(10_000, 'at most 10,000 characters'),
      nullable: true,
      default: null,
      addedIn: 3,
    },
    index: {
      kind: 'integer',
      description: "Where it stands among its template's versions (lower first; the upstream's reorder writes it). 0 when not set.",
      input: z
        .number({ message: 'must be a whole number' })
        .int('must be a whole number')
        .min(0, 'must be 0 or more')
        .max(1_000_000, 'at most 1,000,000'),
      default: 0,
      addedIn: 4,
    },
  },
} as const satisfies EntityDeclaration;
