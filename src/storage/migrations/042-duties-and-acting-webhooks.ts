/**
 * Separation of duties (docs/contract.md §6): a team may allow its approvers to approve their own
 * requests. Webhooks act as a user (docs/contract.md §9): whose rights their deliveries have, and
 * why they are paused when that user can no longer manage them.
 */
export const sql = `
ALTER TABLE teams ADD COLUMN allow_self_approval boolean NOT NULL DEFAULT false;
ALTER TABLE webhooks ADD COLUMN delivers_as_id text;
ALTER TABLE webhooks ADD COLUMN paused_reason text;
`;
