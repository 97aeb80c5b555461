import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { allEventDefinitions } from '../../src/events/catalog.js';
import type { EventDefinition } from '../../src/events/define.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { DECLARED_ENTITIES } from '../../src/model/catalog.js';
import type { EntityDeclaration } from '../../src/model/entity.js';

/**
 * Stored events kept as fixtures (docs/adding-a-field.md, "Old events as fixtures"): for every declared kind, one
 * event of each type at each of its schema versions, exactly as the store keeps it (data with its
 * secrets encrypted under FIXTURE_SECRET_KEY, metadata with its schema version). Today's codec must
 * decode every one and its projection fold it: a field added without `addedIn` makes the older
 * created events fail their schema, as they would in a database that holds them.
 */

/** The directory of the fixtures, one file per type and version: `<Type>.v<N>.json`. */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, '..', 'fixtures', 'events');

/** The key the fixtures' secrets are encrypted with: a test key, never a deployment's. */
export const FIXTURE_SECRET_KEY = 'xkB13eE9nTvMbfh5wryFg9KgqbQRX1MsnE7j2/0UQiE=';

/** One stored event as the fixture keeps it. */
export interface EventFixture {
  readonly type: string;
  readonly streamId: string;
  readonly streamRevision: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
  /** How it was made: recorded from a running service, or derived from a later version's (see `olderCreated`). */
  readonly origin: 'recorded' | 'derived';
}

/** The event types of a declared kind: its kit's names (`WorkspaceCreated`, …) as the codec defines them. */
export function definitionsOf(entity: EntityDeclaration): EventDefinition[] {
  const kinds = ['Created', 'Updated', 'Enabled', 'Disabled', 'Transitioned', 'Deleted'].map((suffix) => `${entity.name}${suffix}`);
  return allEventDefinitions.filter((definition) => kinds.includes(definition.type));
}

/** Every declared kind with its event definitions. */
export const KINDS = DECLARED_ENTITIES.map((entity) => ({ entity, definitions: definitionsOf(entity) }));

export const fixtureFile = (type: string, version: number): string => path.join(FIXTURES_DIR, `${type}.v${version}.json`);

/** The fixtures on disk. */
export function readFixtures(): EventFixture[] {
  if (!existsSync(FIXTURES_DIR)) return [];
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(FIXTURES_DIR, name), 'utf8')) as EventFixture);
}

/** A fixture as the store hands it to the codec. */
export function asRecorded(fixture: EventFixture, position: bigint): RecordedEvent {
  return {
    eventId: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    streamId: fixture.streamId,
    streamRevision: BigInt(fixture.streamRevision),
    type: fixture.type,
    data: fixture.data,
    metadata: fixture.metadata,
    position,
    recordedAt: new Date(String(fixture.metadata.occurredAt)),
  };
}

/** Writes a fixture unless one of that type and version exists (a recorded fixture is never rewritten). */
export function writeFixture(fixture: EventFixture): boolean {
  const version = Number(fixture.metadata.schemaVersion);
  const file = fixtureFile(fixture.type, version);
  if (existsSync(file)) return false;
  mkdirSync(FIXTURES_DIR, { recursive: true });
  writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
  return true;
}

/**
 * The created event of `version` from a later one of the same kind: without the fields added since
 * (`addedIn` > version), which is what an older writer stored, as the upcasters' inverse. Only for
 * declared kinds, whose created events change by `addedIn` alone.
 */
export function olderCreated(entity: EntityDeclaration, later: EventFixture, version: number): EventFixture {
  const added = Object.entries(entity.fields)
    .filter(([, field]) => (field.addedIn ?? 1) > version)
    .map(([name]) => name);
  const data = Object.fromEntries(Object.entries(later.data).filter(([name]) => !added.includes(name)));
  return { ...later, data, metadata: { ...later.metadata, schemaVersion: version }, origin: 'derived' };
}
