/**
 * The UI's session. Browser sessions (guest, single sign-on) live in the HttpOnly refresh cookie
 * `il_refresh`: the access token is kept only in memory, fetched on load and refreshed before it
 * expires. Service-account sign-in issues no refresh cookie, so its token is kept in sessionStorage
 * (this tab only, gone when the tab closes) until it expires; then the user signs in again. Tabs of
 * the same origin (the app, GraphiQL) hand a service-account session to a tab that opens without
 * one, over a BroadcastChannel (never storage another origin or a later visit could read), and a
 * sign-out in one tab ends it in all.
 */

export type SessionKind = 'browser' | 'service_account';

interface Session {
  readonly token: string;
  /** Local clock time (ms) after which the token is no longer used. */
  readonly expiresAt: number;
  readonly kind: SessionKind;
}

interface TokenResponse {
  readonly token: string;
  readonly expiresAt: string;
}

const SERVICE_ACCOUNT_KEY = 'infraledger.serviceAccountSession';
/** Set by the service beside the HttpOnly refresh cookie and cleared with it (src/http/routes/auth.ts). */
const SESSION_HINT = 'il_session=1';

/** Whether a browser session may exist: without the hint a refresh could only answer 401 (a console error). */
const mayHaveBrowserSession = (): boolean => document.cookie.split(';').some((part) => part.trim() === SESSION_HINT);
/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;

let current: Session | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let restoring: Promise<boolean> | undefined;
/** Set when the refresh cookie was refused: no more attempts until a sign-in (or a reload). */
let signedOut = false;
const listeners = new Set<() => void>();

/**
 * The token's lifetime from its own claims (`exp - iat`), counted from now on the local clock, so a
 * skewed clock does not expire it early or late; `expiresAt` from the body when the token is opaque.
 */
function localExpiry(response: TokenResponse): number {
  try {
    const payload = response.token.split('.')[1] ?? '';
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown; iat?: unknown };
    if (typeof claims.exp === 'number' && typeof claims.iat === 'number') return Date.now() + (claims.exp - claims.iat) * 1000;
  } catch {
    // Not a JWT we can read: fall back to the server's expiresAt.
  }
  return Date.parse(response.expiresAt);
}

const valid = (session: Session | undefined): session is Session => session !== undefined && session.expiresAt - 5_000 > Date.now();

function setSession(session: Session | undefined): void {
  current = session;
  if (session) signedOut = false;
  if (refreshTimer !== undefined) clearTimeout(refreshTimer);
  refreshTimer = undefined;
  if (session?.kind === 'browser') {
    const wait = Math.max(5_000, session.expiresAt - Date.now() - REFRESH_MARGIN_MS);
    refreshTimer = setTimeout(() => void refreshFromCookie(), wait);
  }
  for (const listener of listeners) listener();
}

/** Called whenever the session starts, refreshes or ends. */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The access token, when one is held and not about to expire. */
export const accessToken = (): string | undefined => (valid(current) ? current.token : undefined);

export const sessionKind = (): SessionKind | undefined => current?.kind;

async function postJson(url: string, body?: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Presents the refresh cookie for a new access token. The cookie rotates on every use and an old one
 * ends the session, so refreshes are serialised — across tabs too, where the browser has Web Locks.
 */
async function refreshFromCookie(): Promise<boolean> {
  const run = async (): Promise<boolean> => {
    const response = await postJson('/api/auth/refresh').catch(() => undefined);
    if (!response?.ok) {
      if (response?.status === 401) signedOut = true;
      if (current?.kind === 'browser') setSession(undefined);
      return false;
    }
    const body = (await response.json()) as TokenResponse;
    setSession({ token: body.token, expiresAt: localExpiry(body), kind: 'browser' });
    return true;
  };
  // Older browsers have no Web Locks: one tab then serialises only its own refreshes.
  return 'locks' in navigator ? navigator.locks.request('infraledger-refresh', run) : run();
}

/** The channel tabs share service-account sessions on: a tab without one asks, a tab with one answers. */
const CHANNEL = 'infraledger-session';
/** How long a new tab waits for another tab's answer before it looks for a browser session. */
const ASK_MS = 300;

type ChannelMessage =
  | { readonly type: 'ask' }
  | { readonly type: 'session'; readonly token: string; readonly expiresAt: number }
  | { readonly type: 'signed_out'; readonly token: string };

const channel: BroadcastChannel | undefined = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : undefined;
channel?.addEventListener('message', (event: MessageEvent<ChannelMessage>) => {
  const message = event.data;
  if (message.type === 'ask' && current?.kind === 'service_account' && valid(current))
    channel.postMessage({ type: 'session', token: current.token, expiresAt: current.expiresAt } satisfies ChannelMessage);
  // Signed out in another tab: this tab's copy of that session ends too.
  if (message.type === 'signed_out' && current?.token === message.token) clearSession();
});

/** A service-account session another open tab holds, if one answers in time. */
function sessionFromOtherTabs(): Promise<Session | undefined> {
  const open = channel;
  if (!open) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const done = (session: Session | undefined) => {
      clearTimeout(timer);
      open.removeEventListener('message', listen);
      resolve(session);
    };
    const listen = (event: MessageEvent<ChannelMessage>) => {
      const message = event.data;
      if (message.type !== 'session') return;
      const session = { token: message.token, expiresAt: message.expiresAt, kind: 'service_account' as const };
      if (valid(session)) done(session);
    };
    const timer = setTimeout(() => done(undefined), ASK_MS);
    open.addEventListener('message', listen);
    open.postMessage({ type: 'ask' } satisfies ChannelMessage);
  });
}

/** Keeps a service-account session in this tab's storage, so that a reload keeps it. */
function storeServiceAccountSession(session: Session): void {
  try {
    sessionStorage.setItem(SERVICE_ACCOUNT_KEY, JSON.stringify({ token: session.token, expiresAt: session.expiresAt }));
  } catch {
    // Without storage the session lasts until reload.
  }
}

function storedServiceAccountSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(SERVICE_ACCOUNT_KEY);
    if (raw === null) return undefined;
    const parsed = JSON.parse(raw) as Partial<Session>;
    const session =
      typeof parsed.token === 'string' && typeof parsed.expiresAt === 'number'
        ? { token: parsed.token, expiresAt: parsed.expiresAt, kind: 'service_account' as const }
        : undefined;
    if (valid(session)) return session;
    sessionStorage.removeItem(SERVICE_ACCOUNT_KEY);
  } catch {
    // Storage disabled: a reload then signs the service account out.
  }
  return undefined;
}

/**
 * Makes sure a usable access token is held: the one in memory, a service account's from this tab's
 * storage, or a new one for the refresh cookie. One attempt at a time.
 */
export function ensureSession(): Promise<boolean> {
  if (valid(current)) return Promise.resolve(true);
  restoring ??= (async () => {
    try {
      const stored = storedServiceAccountSession();
      if (stored) {
        setSession(stored);
        return true;
      }
      if (signedOut) return false;
      // A browser session (its cookie) comes first; otherwise another tab may hold a service account's.
      if (mayHaveBrowserSession()) return await refreshFromCookie();
      const shared = await sessionFromOtherTabs();
      if (!shared) return false;
      storeServiceAccountSession(shared);
      setSession(shared);
      return true;
    } finally {
      restoring = undefined;
    }
  })();
  return restoring;
}

/** After a 401 on a browser session: one refresh, in case the token expired in flight. */
export async function renewAfterUnauthorized(): Promise<boolean> {
  if (current?.kind === 'service_account') {
    clearSession();
    return false;
  }
  current = undefined;
  return ensureSession();
}

/** A sign-in endpoint's refusal; its body is a problem the caller reads. */
export class SignInRefused extends Error {
  constructor(readonly response: Response) {
    super(`sign-in refused (HTTP ${response.status})`);
  }
}

async function expectToken(response: Response): Promise<TokenResponse> {
  if (!response.ok) throw new SignInRefused(response);
  return (await response.json()) as TokenResponse;
}

export async function signInServiceAccount(identifier: string, password: string): Promise<void> {
  const body = await expectToken(await postJson('/api/auth/service_account/token', { identifier, password }));
  const session: Session = { token: body.token, expiresAt: localExpiry(body), kind: 'service_account' };
  storeServiceAccountSession(session);
  setSession(session);
}

export async function signInGuest(): Promise<void> {
  const body = await expectToken(await postJson('/api/auth/guest/login'));
  setSession({ token: body.token, expiresAt: localExpiry(body), kind: 'browser' });
}

function clearSession(): void {
  try {
    sessionStorage.removeItem(SERVICE_ACCOUNT_KEY);
  } catch {
    // Nothing stored.
  }
  setSession(undefined);
}

/** Ends the session on the server (the cookie's, or the bearer token's) and forgets it here. */
export async function signOut(): Promise<void> {
  const token = current?.token;
  clearSession();
  if (token !== undefined) channel?.postMessage({ type: 'signed_out', token } satisfies ChannelMessage);
  await postJson('/api/auth/logout', undefined, token).catch(() => undefined);
}
