import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { ownerIdField } from './inputs.js';

const nonEmpty = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);

/** Templates: the kinds of infrastructure developers can request (docs/contract.md §2). */
export const templateEntity = {
  name: 'Template',
  kind: 'template',
  plural: 'templates',
  table: 'templates',
  description: 'A kind of infrastructure developers can request (e.g. a database or a bucket).',
  fields: {
    name: {
      kind: 'text',
      description: 'Unique display name.',
      input: nonEmpty(200),
      required: true,
      search: true,
      unique: { key: 'template-name', caseInsensitive: true, message: (name: string) => `a template named "${name}" already exists` },
    },
    template: {
      kind: 'text',
      description: 'Unique, immutable slug (`[a-z0-9_]+`).',
      input: z
        .string()
        .regex(/^[a-z0-9_]+$/, 'must match [a-z0-9_]+')
        .max(100, 'at most 100 characters'),
      required: true,
      immutable: true,
      search: true,
      unique: {
        key: 'template-slug',
        caseInsensitive: false,
        message: (slug: string) => `a template with the slug "${slug}" already exists`,
      },
    },
    abstract: { kind: 'boolean', description: 'An abstract template groups others and needs no source code version.', default: false },
    cloudResourceTypes: {
      kind: 'textList',
      description: 'The cloud resource types it creates (e.g. `aws_s3_bucket`).',
      input: z.array(nonEmpty(200)).max(100, 'at most 100 entries'),
      default: [],
    },
    configuration: { kind: 'json', description: 'Free-form settings.', default: {} },
    documentationUrl: {
      kind: 'text',
      description: "Where the template's documentation lives (an http(s) URL), or null.",
      input: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000, 'at most 2000 characters'),
      nullable: true,
      default: null,
      addedIn: 2,
    },
    parentIds: {
      kind: 'idList',
      description: 'The ids of the templates it belongs to.',
      default: [],
      target: 'template',
      link: { table: 'template_parents', ownerColumn: 'template_id', targetColumn: 'parent_id' },
      filterAs: 'parentId',
      relation: { name: 'parents', type: 'Template', description: 'The templates it belongs to.' },
    },
    executorIds: {
      kind: 'idList',
      description: 'The ids of the executors that run it, in order.',
      default: [],
      target: 'executor',
      link: { table: 'template_executors', ownerColumn: 'template_id', targetColumn: 'executor_id' },
      filterAs: 'executorId',
      relation: { name: 'executors', type: 'Executor', description: 'The executors that run it, in order.' },
    },
    ownerId: ownerIdField(3),
  },
} as const satisfies EntityDeclaration;
