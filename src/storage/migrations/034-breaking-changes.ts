/** Source code versions say what they break (the upstream's `breakingChanges`; docs/contract.md §12). */
export const sql = `
ALTER TABLE source_code_versions ADD COLUMN breaking_changes text;
`;
