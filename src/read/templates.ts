import { sql, type Selectable } from 'kysely';
import type { Db } from '../storage/kysely.js';
import type { TemplatesTable } from '../storage/schema.js';

/** A template as the REST API shows it (camelCase; relations as id lists). */
export interface TemplateView {
  readonly id: string;
  readonly name: string;
  readonly template: string;
  readonly description: string;
  readonly labels: readonly string[];
  readonly abstract: boolean;
  readonly cloudResourceTypes: readonly string[];
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly status: string;
  readonly executorIds: readonly string[];
  readonly parentIds: readonly string[];
  readonly creatorId: string | null;
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The columns a REST view needs, link lists aggregated in order. */
export const templateViewColumns = [
  'templates.id',
  'templates.name',
  'templates.template',
  'templates.description',
  'templates.labels',
  'templates.abstract',
  'templates.cloud_resource_types',
  'templates.configuration',
  'templates.status',
  'templates.creator_id',
  'templates.revision',
  'templates.created_at',
  'templates.updated_at',
  sql<string[]>`ARRAY(SELECT executor_id FROM template_executors te WHERE te.template_id = templates.id ORDER BY te.ordinal)`.as('executor_ids'),
  sql<string[]>`ARRAY(SELECT parent_id FROM template_parents tp WHERE tp.template_id = templates.id ORDER BY tp.ordinal)`.as('parent_ids'),
] as const;

/** What `templateViewColumns` selects: the table's columns (bar the tombstone) plus both link lists. */
export type TemplateViewRow = Omit<Selectable<TemplatesTable>, 'deleted_at'> & { executor_ids: string[]; parent_ids: string[] };

export const toTemplateView = (row: TemplateViewRow): TemplateView => ({
  id: row.id,
  name: row.name,
  template: row.template,
  description: row.description,
  labels: row.labels,
  abstract: row.abstract,
  cloudResourceTypes: row.cloud_resource_types,
  configuration: row.configuration,
  status: row.status,
  executorIds: row.executor_ids,
  parentIds: row.parent_ids,
  creatorId: row.creator_id,
  revision: row.revision,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

export async function findTemplate(db: Db, id: string): Promise<TemplateView | undefined> {
  const row = await db.selectFrom('templates').select(templateViewColumns).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row ? toTemplateView(row) : undefined;
}
