import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDeclaration } from '../../src/model/entity.js';
import { executorEntity } from '../../src/model/executor.js';
import { integrationEntity } from '../../src/model/integration.js';
import { resourceEntity } from '../../src/model/resource.js';
import { secretEntity } from '../../src/model/secret.js';
import { sourceCodeVersionEntity } from '../../src/model/source-code-version.js';
import { sourceCodeEntity } from '../../src/model/source-code.js';
import { storageEntity } from '../../src/model/storage.js';
import { templateEntity } from '../../src/model/template.js';
import { workspaceEntity } from '../../src/model/workspace.js';
import { declaredTableColumns } from '../../src/projections/catalog-projection.js';
import { accountTableColumns } from '../../src/projections/account-projection.js';
import type { AccountDeclaration } from '../../src/model/account.js';
import { userEntity } from '../../src/model/user.js';
import { authProviderEntity } from '../../src/model/auth-provider.js';
import { sessionEntity } from '../../src/model/session.js';
import { personalAccessTokenEntity } from '../../src/model/personal-access-token.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

const ENTITIES: readonly EntityDeclaration[] = [
  executorEntity,
  integrationEntity,
  resourceEntity,
  secretEntity,
  sourceCodeVersionEntity,
  sourceCodeEntity,
  storageEntity,
  templateEntity,
  workspaceEntity,
];

const ACCOUNTS: readonly AccountDeclaration[] = [userEntity, sessionEntity, personalAccessTokenEntity, authProviderEntity];

// The projection writes the declared columns and the REST reader names them in its select: a column
// a migration added without a declaration would be neither written nor read.
describe.each(databaseTargets())('catalog tables after the migrations ($name)', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await target.create();
  });
  afterAll(() => db.close());

  it.each(ENTITIES.map((entity) => [entity.table, entity] as const))('%s has exactly the declared columns', async (table, entity) => {
    const { rows } = await db.pool.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
      [table],
    );
    expect(rows.map((row) => row.column_name).sort()).toEqual(Object.keys(declaredTableColumns(entity)).sort());
  });

  // The same for the identity side's declared records (src/model/account.ts): a field declared
  // without its migration fails here, and its projection fails on the first event that carries it.
  it.each(ACCOUNTS.map((account) => [account.table, account] as const))('%s has exactly the declared columns', async (table, account) => {
    const { rows } = await db.pool.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
      [table],
    );
    expect(rows.map((row) => row.column_name).sort()).toEqual(Object.keys(accountTableColumns(account)).sort());
  });
});
