/**
 * One cursor table for everything that leaves the service from the log (docs/contract.md §9, §11):
 * webhooks and notification integrations each keep a cursor there, keyed by their own id (ids are
 * UUIDs of different entities, so they never collide). The columns are webhook_cursors' as 031 made
 * them; only the names change.
 */
export const sql = `
ALTER TABLE webhook_cursors RENAME TO delivery_cursors;
ALTER TABLE delivery_cursors RENAME COLUMN webhook_id TO target_id;
ALTER TABLE delivery_cursors RENAME CONSTRAINT webhook_cursors_pkey TO delivery_cursors_pkey;
`;
