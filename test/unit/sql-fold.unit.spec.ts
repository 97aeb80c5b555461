import { describe, expect, it } from 'vitest';
import { isCatalogProjection } from '../../src/projections/catalog-projection.js';
import { allProjections } from '../../src/projections/registry.js';
import { foldStatement, type SqlFoldSpec } from '../../src/projections/sql-fold.js';
import { templateEntity } from '../../src/model/template.js';
import { projectionOf } from '../../src/projections/declared.js';

const templatesProjection = projectionOf(templateEntity);

const templates = (templatesProjection as { sqlFold?: SqlFoldSpec }).sqlFold as SqlFoldSpec;
const versions = new Map([...templatesProjection.handles].map((type) => [type, 1]));

describe('the fold of a catalog entity in SQL', () => {
  it('exists exactly for the catalog projections that mask nothing', () => {
    const folded = allProjections.filter((p) => isCatalogProjection(p) && p.sqlFold).map((p) => p.name);
    expect(folded.sort()).toEqual(['executors', 'source_code_versions', 'source_codes', 'storages', 'teams', 'templates', 'workspaces']);
  });

  it('gives every column of the table a value, from a field where one reaches it', () => {
    expect(Object.keys(templates.keys).sort()).toEqual(
      Object.keys(templates.columns)
        .filter((c) => !['creator_id', 'revision', 'created_at', 'updated_at', 'deleted_at'].includes(c))
        .sort(),
    );
    expect(templates.links.map((l) => l.key)).toEqual(['parentIds', 'executorIds']);
  });

  it('splits the streams into parts only when asked to', () => {
    expect(foldStatement(templates, versions, 1)).not.toContain('hashtext');
    expect(foldStatement(templates, versions, 2)).toContain('abs(hashtext(stream_id) % 2) = $3::int');
  });

  it.each([
    ['a table', { ...templates, table: 'templates; DROP TABLE events' }],
    ['a field', { ...templates, keys: { ...templates.keys, name: "name'--" } }],
    ['an event type', { ...templates, events: { ...templates.events, deleted: "T' OR '1" } }],
  ])('refuses %s whose name is not plain (names go into the text)', (_what, spec) => {
    expect(() => foldStatement(spec, versions, 1)).toThrow(TypeError);
  });
});
