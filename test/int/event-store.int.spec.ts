import { describe, it } from 'vitest';
import { createEventStoreDbStore } from '../../src/events/store/eventstoredb.js';
import { createPostgresEventStore } from '../../src/events/store/postgres.js';
import { databaseTargets } from '../support/databases.js';
import { describeEventStoreContract } from './event-store.contract.js';

for (const target of databaseTargets()) {
  describeEventStoreContract(target.name, async () => {
    const db = await target.create();
    const store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 50 });
    return {
      store,
      async close() {
        await store.close();
        await db.close();
      },
    };
  });
}

if (!process.env.TEST_DATABASE_URL) {
  describe('event store contract: postgres', () => {
    it('was not run: TEST_DATABASE_URL is not set (.ci/run sets it to a local PostgreSQL)', () => {
      console.warn('[skipped] event store contract on PostgreSQL: set TEST_DATABASE_URL to run it');
    });
  });
}

const eventStoreDbUrl = process.env.TEST_EVENTSTOREDB_URL;
if (eventStoreDbUrl) {
  describeEventStoreContract('eventstoredb', () => {
    const store = createEventStoreDbStore({ connectionString: eventStoreDbUrl });
    return Promise.resolve({ store, close: () => store.close() });
  });
} else {
  describe('event store contract: eventstoredb', () => {
    it('was not run: TEST_EVENTSTOREDB_URL is not set (no EventStoreDB here; e.g. esdb://localhost:2113?tls=false, server 22.6+)', () => {
      console.warn('[skipped] event store contract on EventStoreDB: set TEST_EVENTSTOREDB_URL to run it');
    });
  });
}
