/**
 * Full (not partial) indexes on the foreign keys GraphQL's reverse relations read by
 * (`Template.sourceCodeVersions`, `SourceCode.sourceCodeVersions`).
 *
 * A relation's statement is prepared; PostgreSQL keeps the generic plan it makes after five runs
 * until the table is analysed again. Made while `source_code_versions` was empty, that plan for
 * `template_id = … AND deleted_at IS NULL` walked `source_code_versions_creator_idx` (a partial index
 * of every live version, its predicate matching the query's) instead of the foreign key's, and kept
 * doing so as the table grew where autovacuum does not analyse it. The relations now exclude
 * tombstones in a form no partial index matches (src/read/live-by-id.ts), so only these indexes can
 * serve them (docs/decisions/0004-prepared-statements.md). The partial indexes stay for the lists.
 */
export const sql = `
CREATE INDEX source_code_versions_template_key_idx ON source_code_versions (template_id);
CREATE INDEX source_code_versions_source_code_key_idx ON source_code_versions (source_code_id);
`;
