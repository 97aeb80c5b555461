import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseTarget } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/**
 * The GraphQL foundation's conformance audit for GraphQL-over-HTTP servers (npm graphql-http), run
 * against the real app on a real socket. Every MUST and SHOULD passes; so do the MAYs it offers.
 */
for (const target of oneDatabaseTarget()) {
  describe(`GraphQL-over-HTTP conformance audit on ${target.name}`, () => {
    let harness: HttpHarness;
    let url: string;

    beforeAll(async () => {
      harness = await openHttpApp(target);
      url = `${await harness.app.listen({ host: '127.0.0.1', port: 0 })}/api/graphql`;
    });
    afterAll(() => harness.close());

    it('passes every audit, MUST, SHOULD and MAY', async () => {
      const results = await auditServer({ url });
      expect(results.length).toBeGreaterThan(50);
      const failed = results
        .filter((result) => result.status !== 'ok')
        .map((result) => `${result.id} ${result.status}: ${result.name}${'reason' in result ? ` (${result.reason})` : ''}`);
      expect(failed).toEqual([]);
    });
  });
}
