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
import { userEntity } from '../../src/model/user.js';
import { accountColumns, accountProjection } from '../../src/projections/account-projection.js';
import { writingAtOnce } from '../../src/projections/projection.js';
import { accountView } from '../../src/read/accounts.js';
import { accountListSpec } from '../../src/read/list-specs/common.js';
import { withTransaction } from '../../src/storage/pool.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

/**
 * docs/adding-a-field.md, "A field on users", done for real in this fixture: `department` added to
 * the users' declaration (src/model/user.ts) reaches every layer with nothing else changed but the
 * migration and the form: events (older ones still decode), bodies, the projection's column, the
 * list, the REST view, OpenAPI and GraphQL. Forgetting the migration fails the projection.
 */
const department = {
  kind: 'text',
  description: 'The department the user works in.',
  input: z.string().trim().max(100, 'at most 100 characters'),
  nullable: true,
  default: null,
  addedIn: 2,
  search: true,
} as const;
const withDepartment = {
  ...userEntity,
  fields: { ...userEntity.fields, department },
  updatable: [...userEntity.updatable, 'department'],
} as const satisfies AccountDeclaration;
/** The migration the guide shows. */
const MIGRATION = 'ALTER TABLE users ADD COLUMN department text';

const UserCreated = defineEvent('UserCreated', accountCreatedSchema(withDepartment), {
  secretPaths: secretPathsOfAccount(withDepartment),
  ...accountVersioning(withDepartment),
});
const UserUpdated = defineEvent('UserUpdated', z.object({ changes: accountChangesSchema(withDepartment) }));
const keyring = createKeyring({ active: randomBytes(32) });
const shipped = createEventCodec(identityEvents, keyring);
const extended = createEventCodec([UserCreated, UserUpdated], keyring);
const projection = accountProjection(withDepartment, {
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

const serviceAccount = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'UserCreated',
  data: {
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

describe('a department on users, declared once', () => {
  it('reads users created before it with no department, and encrypts the hash as before', () => {
    const id = randomUUID();
    const old = written(shipped, `user-${id}`, serviceAccount(id));
    expect(old.data).not.toHaveProperty('passwordHash', 'scrypt$hash');
    const decoded = extended.decode(old);
    expect(decoded.event.data).toMatchObject({ id, department: null, passwordHash: 'scrypt$hash' });
    expect(decoded.metadata.schemaVersion).toBe(2);
  });

  it('is written in create and update bodies, validated as declared', () => {
    const create = z.strictObject(accountCreateShape(withDepartment));
    expect(create.parse({ kind: 'service_account', identifier: 'ci', department: 'Payments ' })).toMatchObject({ department: 'Payments' });
    expect(create.parse({ kind: 'service_account', identifier: 'ci' })).toMatchObject({ department: null });
    expect(create.safeParse({ kind: 'service_account', identifier: 'ci', department: 'x'.repeat(101) }).error?.issues[0]).toMatchObject({
      path: ['department'],
      message: 'at most 100 characters',
    });
    expect(z.strictObject(accountPatchShape(withDepartment)).parse({ department: null })).toEqual({ department: null });
  });

  it('is listed, answered, documented and typed', () => {
    const spec = accountListSpec(withDepartment);
    expect(spec.fields.department).toEqual({ column: 'department', type: 'text' });
    expect(spec.search).toContain('department');
    expect(
      accountView(withDepartment)({ id: 'u', department: 'Payments', created_at: new Date(0), updated_at: new Date(0) }),
    ).toMatchObject({
      department: 'Payments',
    });
    expect(accountViewSchema(withDepartment).properties?.department).toMatchObject({ type: ['string', 'null'] });
    expect(accountType(withDepartment, { restrictedTo: 'user:read' }, {}).fields.department).toMatchObject({
      column: 'department',
      type: 'String',
    });
    expect(accountColumns(withDepartment).department).toBe('text');
  });
});

describe.each(databaseTargets())('the users projection with a department ($name)', (target) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await target.create();
  });
  afterEach(() => db.close());

  const apply = (events: readonly DecodedEvent[]) => withTransaction(db.pool, (tx) => projection.applyBatch(writingAtOnce(tx), events));

  it('fails without the migration: a forgotten column is an error, never a value stored as null', async () => {
    const id = randomUUID();
    await expect(apply([extended.decode(written(extended, `user-${id}`, serviceAccount(id, { department: 'Payments' })))])).rejects.toThrow(
      /department/,
    );
  });

  it('stores it with the migration, changes it on update, and replays to the same row', async () => {
    await db.pool.query(MIGRATION);
    const id = randomUUID();
    const events = [
      written(extended, `user-${id}`, serviceAccount(id, { department: 'Payments' })),
      written(extended, `user-${id}`, { type: 'UserUpdated', data: { changes: { department: 'Platform' } } }),
    ].map((event) => extended.decode(event));
    await apply(events);
    const read = async () => (await db.pool.query<{ department: string }>('SELECT department FROM users WHERE id = $1', [id])).rows;
    expect(await read()).toEqual([{ department: 'Platform' }]);
    await apply(events);
    expect(await read()).toEqual([{ department: 'Platform' }]);
  });
});
