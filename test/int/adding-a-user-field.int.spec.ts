import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventCodec, type DecodedEvent } from '../../src/events/codec.js';
import { createKeyring } from '../../src/events/crypto.js';
import { defineEvent } from '../../src/events/define.js';
import { identityEvents } from '../../src/events/identity.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { accountType } from '../../src/graphql/model.js';
import { accountViewSchema } from '../../src/http/openapi/entity-schemas.js';
import {
  accountChangesSchema,
  accountCreatedSchema,
  accountCreateShape,
  accountPatchShape,
  accountVersioning,
  secretPathsOfAccount,
  type AccountDeclaration,
} from '../../src/model/account.js';
import type { FieldDeclaration } from '../../src/model/entity.js';
import { userEntity } from '../../src/model/user.js';
import { accountColumns, accountProjection } from '../../src/projections/account-projection.js';
import { writingAtOnce } from '../../src/projections/projection.js';
import { accountView } from '../../src/read/accounts.js';
import { accountListSpec } from '../../src/read/list-specs/common.js';
import { withTransaction } from '../../src/storage/pool.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

/**
 * docs/adding-a-field.md, "A field on users", done for real in this fixture: `costCentre` (the guide's
 * `department` under a name of its own, so that following the guide does not collide with it) added to
 * the users' declaration (src/model/user.ts) reaches every layer with nothing else changed but the
 * migration and the form: events (older ones still decode), bodies, the projection's column, the
 * list, the REST view, OpenAPI and GraphQL. Forgetting the migration fails the projection.
 */
/** UserCreated's version once the field is added. */
const NEXT_VERSION = accountVersioning(userEntity).version + 1;
const costCentre = {
  kind: 'text',
  description: 'The cost centre the user is billed to.',
  input: z.string().trim().max(100, 'at most 100 characters'),
  nullable: true,
  default: null,
  // The next version of UserCreated, whatever fields the real declaration has gained since.
  addedIn: NEXT_VERSION,
  search: true,
} as const;
const withCostCentre = {
  ...userEntity,
  fields: { ...userEntity.fields, costCentre },
  updatable: [...userEntity.updatable, 'costCentre'],
} as const satisfies AccountDeclaration;
/** The migration the guide shows. */
const MIGRATION = 'ALTER TABLE users ADD COLUMN cost_centre text';

const UserCreated = defineEvent('UserCreated', accountCreatedSchema(withCostCentre), {
  secretPaths: secretPathsOfAccount(withCostCentre),
  ...accountVersioning(withCostCentre),
});
const UserUpdated = defineEvent('UserUpdated', z.object({ changes: accountChangesSchema(withCostCentre) }));
const keyring = createKeyring({ active: randomBytes(32) });
const shipped = createEventCodec(identityEvents, keyring);
const extended = createEventCodec([UserCreated, UserUpdated], keyring);
const projection = accountProjection(withCostCentre, {
  created: 'UserCreated',
  updated: 'UserUpdated',
  handles: ['UserCreated', 'UserUpdated'],
  evolve: (row) => row,
});

let revision = 0n;
/** An event as written by `codec`, read back as stored. */
function written(codec: typeof shipped, streamId: string, event: { type: string; data: Record<string, unknown> }): RecordedEvent {
  const at = '2026-11-01T00:00:00.000Z';
  const encoded = codec.encode(event, { actorId: null, correlationId: 'c', causationId: 'c', occurredAt: at }, randomUUID());
  return { ...encoded, streamId, streamRevision: event.type.endsWith('Created') ? 0n : ++revision, position: 1n, recordedAt: new Date(at) };
}

/** The defaults of every field the real declaration has (fields added after this test was written included). */
const DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(userEntity.fields as Readonly<Record<string, FieldDeclaration>>).flatMap(([name, field]) =>
    field.default !== undefined ? [[name, field.default]] : [],
  ),
);

const serviceAccount = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'UserCreated',
  data: {
    ...DEFAULTS,
    id,
    kind: 'service_account',
    identifier: `ci-${id.slice(0, 8)}`,
    email: null,
    displayName: null,
    provider: 'svc_service_account',
    subject: null,
    roles: ['default'],
    grants: [],
    passwordHash: 'scrypt$hash',
    ...extra,
  },
});

describe('a cost centre on users, declared once', () => {
  it('reads users created before it with no cost centre, and encrypts the hash as before', () => {
    const id = randomUUID();
    const old = written(shipped, `user-${id}`, serviceAccount(id));
    expect(old.data).not.toHaveProperty('passwordHash', 'scrypt$hash');
    const decoded = extended.decode(old);
    expect(decoded.event.data).toMatchObject({ id, costCentre: null, passwordHash: 'scrypt$hash' });
    expect(decoded.metadata.schemaVersion).toBe(NEXT_VERSION);
  });

  it('is written in create and update bodies, validated as declared', () => {
    const create = z.strictObject(accountCreateShape(withCostCentre));
    expect(create.parse({ kind: 'service_account', identifier: 'ci', costCentre: 'Payments ' })).toMatchObject({ costCentre: 'Payments' });
    expect(create.parse({ kind: 'service_account', identifier: 'ci' })).toMatchObject({ costCentre: null });
    expect(create.safeParse({ kind: 'service_account', identifier: 'ci', costCentre: 'x'.repeat(101) }).error?.issues[0]).toMatchObject({
      path: ['costCentre'],
      message: 'at most 100 characters',
    });
    expect(z.strictObject(accountPatchShape(withCostCentre)).parse({ costCentre: null })).toEqual({ costCentre: null });
  });

  it('is listed, answered, documented and typed', () => {
    const spec = accountListSpec(withCostCentre);
    expect(spec.fields.costCentre).toEqual({ column: 'cost_centre', type: 'text' });
    expect(spec.search).toContain('cost_centre');
    expect(
      accountView(withCostCentre)({ id: 'u', cost_centre: 'Payments', created_at: new Date(0), updated_at: new Date(0) }),
    ).toMatchObject({
      costCentre: 'Payments',
    });
    expect(accountViewSchema(withCostCentre).properties?.costCentre).toMatchObject({ type: ['string', 'null'] });
    expect(accountType(withCostCentre, { restrictedTo: 'user:read' }, {}).fields.costCentre).toMatchObject({
      column: 'cost_centre',
      type: 'String',
    });
    expect(accountColumns(withCostCentre).cost_centre).toBe('text');
  });
});

describe.each(databaseTargets())('the users projection with a cost centre ($name)', (target) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await target.create();
  });
  afterEach(() => db.close());

  const apply = (events: readonly DecodedEvent[]) => withTransaction(db.pool, (tx) => projection.applyBatch(writingAtOnce(tx), events));

  it('fails without the migration: a forgotten column is an error, never a value stored as null', async () => {
    const id = randomUUID();
    await expect(apply([extended.decode(written(extended, `user-${id}`, serviceAccount(id, { costCentre: 'Payments' })))])).rejects.toThrow(
      /cost_centre/,
    );
  });

  it('stores it with the migration, changes it on update, and replays to the same row', async () => {
    await db.pool.query(MIGRATION);
    const id = randomUUID();
    const events = [
      written(extended, `user-${id}`, serviceAccount(id, { costCentre: 'Payments' })),
      written(extended, `user-${id}`, { type: 'UserUpdated', data: { changes: { costCentre: 'Platform' } } }),
    ].map((event) => extended.decode(event));
    await apply(events);
    const read = async () =>
      (await db.pool.query<{ costCentre: string }>('SELECT cost_centre AS "costCentre" FROM users WHERE id = $1', [id])).rows;
    expect(await read()).toEqual([{ costCentre: 'Platform' }]);
    await apply(events);
    expect(await read()).toEqual([{ costCentre: 'Platform' }]);
  });
});
