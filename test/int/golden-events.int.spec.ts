import { describe, expect, it } from 'vitest';
import { createEventCodec, type DecodedEvent } from '../../src/events/codec.js';
import { allEventDefinitions } from '../../src/events/catalog.js';
import { createKeyring, parseSecretKey } from '../../src/events/crypto.js';
import type { EntityDeclaration } from '../../src/model/entity.js';
import type { CatalogRow } from '../../src/projections/catalog-projection.js';
import { projectionOf } from '../../src/projections/declared.js';
import { asRecorded, FIXTURE_SECRET_KEY, fixtureFile, KINDS, readFixtures, type EventFixture } from '../support/event-fixtures.js';
import { existsSync } from 'node:fs';

/**
 * Old events as fixtures (docs/adding-a-field.md, "Old events as fixtures"): every stored event in
 * test/fixtures/events decodes with today's codec and folds through its kind's projection, and every
 * event type of every declared kind has one at each of its versions. A field added to a kind without
 * `addedIn` leaves the created event's version where it was, so the fixture of that version (written
 * before the field) no longer matches the schema: this test fails, as the service would answer 500
 * on a database holding such an event. Record what is missing with
 * `npm run fixtures:events`.
 */

const codec = createEventCodec(allEventDefinitions, createKeyring({ active: parseSecretKey(FIXTURE_SECRET_KEY) }));

const isCreated = (type: string): boolean => type.endsWith('Created');

describe('old events kept as fixtures', () => {
  it('has one for every event type of every declared kind at each of its versions', () => {
    const missing = KINDS.flatMap(({ definitions }) =>
      definitions.flatMap((definition) => {
        const versions = isCreated(definition.type) ? Array.from({ length: definition.version }, (_, i) => i + 1) : [definition.version];
        return versions.filter((version) => !existsSync(fixtureFile(definition.type, version))).map((v) => `${definition.type} v${v}`);
      }),
    );
    expect(missing, 'record them: npm run fixtures:events').toEqual([]);
  });

  describe.each(KINDS.map(({ entity }) => [entity.kind, entity] as const))('of %s', (_kind, entity: EntityDeclaration) => {
    const fixtures = readFixtures().filter((fixture) => definitionsOfKind(entity).includes(fixture.type));
    const decode = (fixture: EventFixture, index: number): DecodedEvent => codec.decode(asRecorded(fixture, BigInt(index + 1)));

    it('decodes each with today’s codec', () => {
      const failures = fixtures.flatMap((fixture, index) => {
        try {
          decode(fixture, index);
          return [];
        } catch (error) {
          return [`${fixture.type} v${String(fixture.metadata.schemaVersion)}: ${(error as Error).message}`];
        }
      });
      expect(failures).toEqual([]);
    });

    it('folds each created version into a row with every declared column, and every later type onto it', () => {
      const folder = projectionOf(entity);
      const created = fixtures.filter((fixture) => isCreated(fixture.type));
      const later = fixtures.filter((fixture) => !isCreated(fixture.type));
      expect(created.length).toBeGreaterThan(0);
      for (const [index, fixture] of created.entries()) {
        const row = folder.evolve(undefined, decode(fixture, index));
        expect(row, `${fixture.type} v${String(fixture.metadata.schemaVersion)}`).toBeDefined();
        let folded: CatalogRow | undefined = row;
        for (const [at, event] of later.entries()) folded = folder.evolve(folded ?? row, decode(event, created.length + at));
        for (const field of Object.keys(entity.fields).filter((name) => !isLink(entity, name))) {
          expect(Object.keys(row ?? {}), `${fixture.type} v${String(fixture.metadata.schemaVersion)} → ${field}`).toContain(
            columnOf(field),
          );
        }
      }
    });
  });
});

/** The event type names of one declared kind. */
function definitionsOfKind(entity: EntityDeclaration): string[] {
  return KINDS.find((kind) => kind.entity === entity)?.definitions.map((definition) => definition.type) ?? [];
}

const isLink = (entity: EntityDeclaration, field: string): boolean => entity.fields[field]?.kind === 'idList';

/** A field's column: its snake_case. */
const columnOf = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
