/** Source code versions keep their place among their template's versions (the upstream's `index`; docs/contract.md §12). */
export const sql = `
ALTER TABLE source_code_versions ADD COLUMN index integer NOT NULL DEFAULT 0;
`;
