import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './page.css';
import type { ExecutionResult } from 'graphql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

/**
 * What GraphiQL hands its fetcher. Spelled out here: @graphiql/toolkit's own `Fetcher` type refers to
 * graphql-ws (an optional peer we do not install), which leaves it unresolved.
 */
interface FetcherParams {
  readonly query: string;
  readonly operationName?: string | null;
  readonly variables?: unknown;
}

/** Same origin as the page: the service that served it. */
const ENDPOINT = '/api/graphql';

/** Shown in the Headers tab of a new tab: the shape a token goes in (SPEC §4). */
const DEFAULT_HEADERS = `{
  "Authorization": "Bearer <token>"
}`;

const DEFAULT_QUERY = `# infraledger GraphQL API
#
# Operations need a bearer token, except introspection,
# enabledAuthProviders and the serviceAccountToken mutation:
# replace <token> in the Headers tab below with yours.
#
# Ctrl-Space completes, Ctrl-Enter runs; the book icon
# (top left) opens the schema docs.

{
  me {
    id
  }
}
`;

/**
 * Posts the operation as JSON with the Headers tab's headers. An answer that is not JSON (a proxy's
 * error page, a 503 while starting) becomes a GraphQL-shaped error instead of a parse failure.
 */
async function fetcher(params: FetcherParams, options?: { readonly headers?: Record<string, unknown> }): Promise<ExecutionResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  for (const [name, value] of Object.entries(options?.headers ?? {})) headers[name] = String(value);
  const response = await fetch(ENDPOINT, { method: 'POST', headers, body: JSON.stringify(params) });
  if ((response.headers.get('content-type') ?? '').includes('json')) return (await response.json()) as ExecutionResult;
  // GraphiQL only prints the answer, so a plain message object stands in for a GraphQLError.
  return { errors: [{ message: `HTTP ${response.status}: ${(await response.text()).trim()}` }] } as unknown as ExecutionResult;
}

const container = document.getElementById('graphiql');
if (container === null) throw new TypeError('index.html has no #graphiql element');

createRoot(container).render(
  <StrictMode>
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={DEFAULT_QUERY}
      defaultHeaders={DEFAULT_HEADERS}
      isHeadersEditorEnabled
      defaultEditorToolsVisibility="headers"
      // Tokens never reach localStorage (false also hides GraphiQL's persist-headers setting).
      shouldPersistHeaders={false}
    />
  </StrictMode>,
);
