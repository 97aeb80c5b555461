/**
 * Webhooks (docs/contract.md §9): the `webhooks` read table of the declared entity, and
 * `webhook_cursors`, each webhook's delivery state, written by the deliverers (not a projection: a
 * rebuild leaves it alone). A cursor's lease says which replica delivers the webhook now.
 */
export const sql = `
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  name text NOT NULL,
  url text NOT NULL,
  event_types text[] NOT NULL DEFAULT '{}',
  entity_kinds text[] NOT NULL DEFAULT '{}',
  owner_ids text[] NOT NULL DEFAULT '{}',
  secret text NOT NULL,
  owner_id uuid
);
CREATE INDEX webhooks_created_at_idx ON webhooks (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_updated_at_idx ON webhooks (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_status_idx ON webhooks (status) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_labels_idx ON webhooks USING gin (labels);
CREATE INDEX webhooks_creator_id_idx ON webhooks (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_name_idx ON webhooks (name, id) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_owner_id_idx ON webhooks (owner_id, id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_cursors (
  webhook_id uuid PRIMARY KEY,
  position bigint NOT NULL,
  state text NOT NULL DEFAULT 'active',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_error text,
  failed_event_id uuid,
  delivered bigint NOT NULL DEFAULT 0,
  last_delivered_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
