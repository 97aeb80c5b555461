/**
 * Trigram indexes (pg_trgm) for the lists' `__like` filters and `q` searches: `ILIKE '%text%'` on the
 * searched columns (and names) uses them instead of scanning the table. Where the extension cannot be
 * created (no CREATE privilege on the database, or not installed) the lists keep working, by scanning,
 * and the migration says so; other `__like` fields scan as before.
 */
export const sql = `
DO $trgm$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
    RAISE WARNING 'pg_trgm is not available (%): text searches of the lists scan their tables', SQLERRM;
    RETURN;
  END;
    EXECUTE 'CREATE INDEX templates_name_trgm_idx ON templates USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX templates_template_trgm_idx ON templates USING gin (template gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX templates_description_trgm_idx ON templates USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX resources_name_trgm_idx ON resources USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX resources_description_trgm_idx ON resources USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX executors_name_trgm_idx ON executors USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX executors_description_trgm_idx ON executors USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX integrations_name_trgm_idx ON integrations USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX integrations_description_trgm_idx ON integrations USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX secrets_name_trgm_idx ON secrets USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX secrets_description_trgm_idx ON secrets USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX storages_name_trgm_idx ON storages USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX storages_description_trgm_idx ON storages USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX workspaces_name_trgm_idx ON workspaces USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX workspaces_description_trgm_idx ON workspaces USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX source_codes_identifier_trgm_idx ON source_codes USING gin (identifier gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX source_codes_description_trgm_idx ON source_codes USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX source_code_versions_identifier_trgm_idx ON source_code_versions USING gin (identifier gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX source_code_versions_description_trgm_idx ON source_code_versions USING gin (description gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX auth_providers_name_trgm_idx ON auth_providers USING gin (name gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX auth_providers_key_trgm_idx ON auth_providers USING gin (key gin_trgm_ops) WHERE deleted_at IS NULL';
    EXECUTE 'CREATE INDEX users_identifier_trgm_idx ON users USING gin (identifier gin_trgm_ops)';
    EXECUTE 'CREATE INDEX users_display_name_trgm_idx ON users USING gin (display_name gin_trgm_ops)';
    EXECUTE 'CREATE INDEX users_email_trgm_idx ON users USING gin (email gin_trgm_ops)';
END
$trgm$;
`;
