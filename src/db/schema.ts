import type { ColumnType, Generated } from 'kysely';

/** Read tables as Kysely sees them (snake_case columns, one per field). */
export interface TemplatesTable {
  id: string;
  name: string;
  template: string;
  description: string;
  labels: string[];
  abstract: boolean;
  cloud_resource_types: string[];
  configuration: ColumnType<Record<string, unknown>, string, string>;
  status: string;
  creator_id: string | null;
  revision: number;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
  deleted_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
}

export interface TemplateExecutorsTable {
  template_id: string;
  executor_id: string;
  ordinal: number;
}

export interface TemplateParentsTable {
  template_id: string;
  parent_id: string;
  ordinal: number;
}

export interface ProjectionCheckpointsTable {
  name: string;
  position: string | null;
  status: Generated<string>;
  error: string | null;
  failed_event_id: string | null;
  updated_at: Generated<Date>;
}

export interface Database {
  templates: TemplatesTable;
  template_executors: TemplateExecutorsTable;
  template_parents: TemplateParentsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
}
