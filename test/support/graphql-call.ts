import type { HttpHarness } from './http-app.js';

/** A GraphQL answer as the tests read it. */
export interface GraphqlAnswer {
  readonly data: Record<string, unknown> | null;
  readonly errors?: { message: string; extensions: { code: string } }[];
}

/** Runs a GraphQL operation through the harness, as the admin unless a token is given. */
export const graphqlOf =
  (h: () => HttpHarness) =>
  async (query: string, variables: Record<string, unknown> = {}, token?: string): Promise<GraphqlAnswer> =>
    (
      await h().inject({
        method: 'POST',
        url: '/api/graphql',
        payload: { query, variables },
        ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
      })
    ).json<GraphqlAnswer>();
