/**
 * Favorites (docs/contract.md §2): the entities each user starred, projected from their favorites
 * streams. Entity ids are UUIDs of every kind, so (user, entity) is the key; the kind rides along for
 * lists by kind.
 */
export const sql = `
CREATE TABLE favorites (
  user_id uuid NOT NULL,
  entity_type text NOT NULL,
  entity_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, entity_id)
);
CREATE INDEX favorites_user_created_idx ON favorites (user_id, created_at DESC);
`;
