/**
 * The Emmett side of `npm run bench -- peers` (creates): what a team would write with
 * `@event-driven-io/emmett-postgresql` instead of running infraledger. `POST /api/templates` runs a
 * `DeciderCommandHandler` (the template's stream read, a decision, the append with the expected
 * version), an inline raw-SQL projection writes the row in the append's transaction into a table
 * shaped and indexed as the service's `templates`, and the row is read back for the answer. No
 * authentication, no reservations, no audit. Run as `DATABASE_URL=… PORT=… node --import tsx
 * bench/peers/emmett-service.ts`; `GET /readyz` answers once it listens.
 */
import { randomUUID } from 'node:crypto';
import { DeciderCommandHandler, projections, type Command, type Event } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore, postgreSQLRawSQLProjection } from '@event-driven-io/emmett-postgresql';
import Fastify from 'fastify';
import pg from 'pg';
import { z } from 'zod';

/** The service's `templates` table: its columns and every index (docs/benchmarks.md). */
const TEMPLATES_TABLE = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE IF NOT EXISTS templates (
  id uuid PRIMARY KEY, name text NOT NULL, template text NOT NULL, description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}', abstract boolean NOT NULL DEFAULT false, cloud_resource_types text[] NOT NULL DEFAULT '{}',
  configuration jsonb NOT NULL DEFAULT '{}', status text NOT NULL DEFAULT 'enabled', creator_id uuid, revision integer NOT NULL,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, deleted_at timestamptz, documentation_url text, owner_id uuid
);
CREATE INDEX IF NOT EXISTS templates_created_at_idx ON templates (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_creator_idx ON templates (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_description_trgm_idx ON templates USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_labels_idx ON templates USING gin (labels);
CREATE UNIQUE INDEX IF NOT EXISTS templates_lower_name_idx ON templates (lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_name_idx ON templates (name, id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_name_trgm_idx ON templates USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_owner_id_idx ON templates (owner_id, id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_status_idx ON templates (status) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS templates_template_idx ON templates (template) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_template_trgm_idx ON templates USING gin (template gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS templates_updated_at_idx ON templates (updated_at, id) WHERE deleted_at IS NULL;
`;

const body = z.strictObject({
  name: z.string().min(1).max(200),
  template: z.string().regex(/^[a-z0-9_]+$/),
  description: z.string().default(''),
  labels: z.array(z.string()).default([]),
  cloudResourceTypes: z.array(z.string()).default([]),
});
type TemplateFields = z.infer<typeof body> & { readonly id: string; readonly createdAt: string };

type CreateTemplate = Command<'CreateTemplate', TemplateFields>;
type TemplateCreated = Event<'TemplateCreated', TemplateFields>;
type State = { readonly exists: boolean };

const handle = DeciderCommandHandler<State, CreateTemplate, TemplateCreated>({
  initialState: () => ({ exists: false }),
  evolve: () => ({ exists: true }),
  decide: (command, state) => {
    if (state.exists) throw new Error(`template ${command.data.id} exists`);
    return { type: 'TemplateCreated', data: command.data };
  },
});

/** Strings and arrays as SQL literals: Emmett's raw-SQL projections return statements as text (its `SQL` is branded text). */
const literal = (value: string): string => pg.escapeLiteral(value);
const textArray = (values: readonly string[]): string => `ARRAY[${values.map(literal).join(',')}]::text[]`;

/** The branded text Emmett's raw-SQL projections return. */
type SqlText = ReturnType<Parameters<typeof postgreSQLRawSQLProjection<TemplateCreated>>[0]['evolve']> & string;

const templatesProjection = postgreSQLRawSQLProjection<TemplateCreated>({
  name: 'templates',
  canHandle: ['TemplateCreated'],
  evolve: ({ data: t }) =>
    `INSERT INTO templates (id, name, template, description, labels, cloud_resource_types, revision, created_at, updated_at)
     VALUES (${literal(t.id)}, ${literal(t.name)}, ${literal(t.template)}, ${literal(t.description)}, ${textArray(t.labels)},
       ${textArray(t.cloudResourceTypes)}, 1, ${literal(t.createdAt)}, ${literal(t.createdAt)})` as SqlText,
});

const databaseUrl = process.env.DATABASE_URL ?? '';
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
await pool.query(TEMPLATES_TABLE);
const store = getPostgreSQLEventStore(databaseUrl, { projections: projections.inline([templatesProjection]) });
await store.schema.migrate();

const app = Fastify({ logger: false });
app.get('/readyz', () => ({ ready: true }));
app.post('/api/templates', async (request, reply) => {
  const parsed = body.safeParse(request.body);
  if (!parsed.success) return reply.status(400).send({ detail: parsed.error.message });
  const id = randomUUID();
  await handle(store, `template-${id}`, { type: 'CreateTemplate', data: { ...parsed.data, id, createdAt: new Date().toISOString() } });
  const { rows } = await pool.query('SELECT * FROM templates WHERE id = $1', [id]);
  return reply.status(201).send(rows[0]);
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });

const stop = async (): Promise<void> => {
  await app.close();
  await store.close();
  await pool.end();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
