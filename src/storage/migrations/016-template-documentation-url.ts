/** Templates gain `documentationUrl` (declared in src/model/template.ts); null for existing rows. */
export const sql = `
ALTER TABLE templates ADD COLUMN documentation_url text;
`;
