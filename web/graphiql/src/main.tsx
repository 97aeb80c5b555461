import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './page.css';
import { getOperationAST, OperationTypeNode, parse, type ExecutionResult } from 'graphql';
import { createClient } from 'graphql-ws';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { accessToken, ensureSession } from '../../src/api/session';
import { repairAccessibility } from './accessibility';

/** What GraphiQL hands its fetcher (spelled out: @graphiql/toolkit's own `Fetcher` type is wider than we need). */
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
# enabledAuthProviders and the serviceAccountToken mutation.
# Signed in to the web UI? Your session is used. Otherwise
# replace <token> in the Headers tab below with yours.
#
# Ctrl-Space completes, Ctrl-Enter runs; the book icon
# (top left) opens the schema docs. Subscriptions run live
# over WebSocket: subscription { changes { action entityType } }

{
  me {
    id
  }
}
`;

/** The Headers tab's placeholder: left as it is, it means "no token of mine". */
const PLACEHOLDER = 'Bearer <token>';

/**
 * The headers an operation goes with: the Headers tab's, where it names a token; else the web UI's
 * session in this browser (a tab's service account, or the sign-in cookie), when there is one.
 */
async function withSession(given: Record<string, unknown>): Promise<Record<string, string>> {
  const entries = Object.entries(given).map(([name, value]) => [name, String(value)] as const);
  const named = entries.find(([name]) => name.toLowerCase() === 'authorization');
  if (named && named[1].trim() !== PLACEHOLDER) return Object.fromEntries(entries);
  const headers = Object.fromEntries(entries.filter(([name]) => name.toLowerCase() !== 'authorization'));
  const token = (await ensureSession()) ? accessToken() : undefined;
  return token === undefined ? headers : { ...headers, Authorization: `Bearer ${token}` };
}

/**
 * Posts the operation as JSON with the Headers tab's headers (or the session's token). An answer that is not JSON (a proxy's
 * error page, a 503 while starting) becomes a GraphQL-shaped error instead of a parse failure.
 */
async function fetcher(params: FetcherParams, options?: { readonly headers?: Record<string, unknown> }): Promise<ExecutionResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(await withSession(options?.headers ?? {})),
  };
  const response = await fetch(ENDPOINT, { method: 'POST', headers, body: JSON.stringify(params) });
  if ((response.headers.get('content-type') ?? '').includes('json')) return (await response.json()) as ExecutionResult;
  // GraphiQL only prints the answer, so a plain message object stands in for a GraphQLError.
  return { errors: [{ message: `HTTP ${response.status}: ${(await response.text()).trim()}` }] } as unknown as ExecutionResult;
}

/** Whether the document's operation is a subscription (a document that does not parse is POSTed, to be told why). */
function isSubscription(params: FetcherParams): boolean {
  try {
    return getOperationAST(parse(params.query), params.operationName ?? undefined)?.operation === OperationTypeNode.SUBSCRIPTION;
  } catch {
    return false;
  }
}

/**
 * Runs a subscription over graphql-ws on the same endpoint (ws:// or wss:// as the page), signing in
 * with the Headers tab's headers (or the session's token) in connection_init; GraphiQL shows each change as it arrives and
 * stops the socket when the operation is stopped.
 */
function subscribe(params: FetcherParams, headers: Record<string, unknown>): AsyncIterableIterator<ExecutionResult> {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${ENDPOINT}`;
  // Asked when the socket connects: the session's token when the Headers tab names none.
  const client = createClient({ url, connectionParams: () => withSession(headers), lazy: true, retryAttempts: 0 });
  const results = client.iterate({
    query: params.query,
    operationName: params.operationName ?? undefined,
    variables: (params.variables ?? {}) as Record<string, unknown>,
  });
  const end = () => void client.dispose();
  return {
    async next() {
      const result = await results.next().catch((error: unknown) => {
        end();
        // A refused connection arrives as a close event: its reason says why (e.g. a bad token).
        const reason = (error as { reason?: string } | null)?.reason;
        return { done: false as const, value: { errors: [{ message: reason || String(error) }] } as unknown as ExecutionResult };
      });
      if (result.done) end();
      return result as IteratorResult<ExecutionResult>;
    },
    async return() {
      await results.return?.();
      end();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** GraphiQL's fetcher: subscriptions over graphql-ws, everything else a POST. */
function graphqlFetcher(
  params: FetcherParams,
  options?: { readonly headers?: Record<string, unknown> },
): Promise<ExecutionResult> | AsyncIterableIterator<ExecutionResult> {
  return isSubscription(params) ? subscribe(params, options?.headers ?? {}) : fetcher(params, options);
}

const container = document.getElementById('graphiql');
if (container === null) throw new TypeError('index.html has no #graphiql element');
repairAccessibility(container);

createRoot(container).render(
  <StrictMode>
    <GraphiQL
      fetcher={graphqlFetcher}
      defaultQuery={DEFAULT_QUERY}
      defaultHeaders={DEFAULT_HEADERS}
      isHeadersEditorEnabled
      defaultEditorToolsVisibility="headers"
      // Tokens never reach localStorage (false also hides GraphiQL's persist-headers setting).
      shouldPersistHeaders={false}
    />
  </StrictMode>,
);
