import { HttpError } from 'react-admin';
import { problemError, toProblem } from './problem';
import { accessToken, ensureSession, renewAfterUnauthorized } from './session';

export interface ApiResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface ApiRequest {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly body?: unknown;
  /** The revision the change is based on (`If-Match`, 412 when someone else changed it). */
  readonly ifMatch?: number;
  readonly signal?: AbortSignal;
  /** The media type asked for (default `application/json`; the audit log also answers `text/csv`). */
  readonly accept?: string;
}

/** What the service would answer without a token, said here instead of asking it (a 401 is a console error). */
const signedOut = (): HttpError => problemError(toProblem(401, undefined, 'Sign in to continue.'));

async function send(path: string, request: ApiRequest): Promise<Response> {
  const token = accessToken();
  // The session ended (sign-out) while this request waited for it.
  if (!token) throw signedOut();
  const headers: Record<string, string> = { accept: request.accept ?? 'application/json', authorization: `Bearer ${token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.ifMatch !== undefined) headers['if-match'] = `"${request.ifMatch}"`;
  return fetch(path, {
    method: request.method ?? 'GET',
    headers,
    credentials: 'same-origin',
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: request.signal,
  });
}

/**
 * Calls the REST API with the session's bearer token. A 401 gets one refresh and retry (the token
 * may have expired in flight); every failure is thrown as an HttpError carrying the problem.
 */
export async function api<T = unknown>(path: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
  // Signed out: the service would only answer 401, which the browser logs as an error.
  if (!(await ensureSession())) throw signedOut();
  let response = await send(path, request).catch((error: unknown) => {
    if ((error instanceof DOMException && error.name === 'AbortError') || error instanceof HttpError) throw error;
    throw new HttpError('The service cannot be reached; check the connection and try again.', 0, {});
  });
  if (response.status === 401 && (await renewAfterUnauthorized())) response = await send(path, request);
  const text = await response.text();
  let body: unknown = undefined;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!response.ok) throw problemError(toProblem(response.status, body, response.statusText || `HTTP ${response.status}`));
  return { status: response.status, headers: response.headers, body: body as T };
}

/** JSON query parameters as the list endpoints read them (`filter`, `sort`, `range`). */
export function listQuery(params: {
  filter?: Record<string, unknown>;
  sort?: readonly [string, 'ASC' | 'DESC'];
  range?: readonly [number, number];
}): string {
  const search = new URLSearchParams();
  if (params.filter && Object.keys(params.filter).length > 0) search.set('filter', JSON.stringify(params.filter));
  if (params.sort) search.set('sort', JSON.stringify(params.sort));
  if (params.range) search.set('range', JSON.stringify(params.range));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** `Content-Range: templates 0-24/313` (or `templates *\/0`) → 313. */
export function totalOf(headers: Headers, fallback: number): number {
  const match = /\/(\d+)\s*$/.exec(headers.get('content-range') ?? '');
  return match?.[1] === undefined ? fallback : Number(match[1]);
}
