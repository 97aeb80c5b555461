import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

let browsers = 1;

/** The Set-Cookie headers of a fetch or inject response. */
function setCookies(headers: Headers | LightMyRequestResponse['headers']): string[] {
  if (headers instanceof Headers) return headers.getSetCookie();
  const value = headers['set-cookie'];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The browser side of a sign-in, by hand: one cookie jar per origin (paths and flags are not
 * modelled; the tests assert those on the headers), redirects followed one by one. The service is
 * reached with `app.inject`, the identity providers with `fetch`.
 */
export class TestBrowser {
  private readonly jars = new Map<string, Map<string, string>>();
  /** The service's cookies (`il_sso`, `il_refresh`). */
  readonly service = new Map<string, string>();

  /** Each browser has its own address, as separate users do (sign-in is rate-limited per address). */
  readonly address = `10.${(browsers >> 16) & 255}.${(browsers >> 8) & 255}.${browsers++ & 255}`;

  constructor(private readonly app: FastifyInstance) {}

  private store(jar: Map<string, string>, headers: string[]): void {
    for (const header of headers) {
      const [pair = '', ...attributes] = header.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired =
        attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attributes.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }

  private cookieHeader(jar: Map<string, string>): string {
    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** A request to the service carrying its cookies; stores what it sets. */
  async inject(method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method,
      url,
      remoteAddress: this.address,
      headers: { ...(this.service.size > 0 ? { cookie: this.cookieHeader(this.service) } : {}), ...headers },
    });
    this.store(this.service, setCookies(response.headers));
    return response;
  }

  /**
   * Follows redirects at the identity provider from `url` until one points at `stopAt` (the service's
   * callback), and returns that URL. Throws on anything but a redirect on the way.
   */
  async atProvider(url: string, stopAt: string): Promise<URL> {
    let next = new URL(url);
    for (let hop = 0; hop < 20; hop++) {
      if (next.href.startsWith(stopAt)) return next;
      let jar = this.jars.get(next.origin);
      if (!jar) {
        jar = new Map();
        this.jars.set(next.origin, jar);
      }
      const response = await fetch(next, { redirect: 'manual', headers: jar.size > 0 ? { cookie: this.cookieHeader(jar) } : {} });
      this.store(jar, setCookies(response.headers));
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        throw new Error(`the identity provider answered ${response.status} at ${next.pathname}: ${(await response.text()).slice(0, 500)}`);
      }
      next = new URL(location, next);
    }
    throw new Error('too many redirects at the identity provider');
  }

  /** `GET /api/auth/{key}/login`: the identity provider's authorization URL (asserts the 302). */
  async startLogin(key: string): Promise<{ response: LightMyRequestResponse; location: string }> {
    const response = await this.inject('GET', `/api/auth/${key}/login`);
    return { response, location: response.headers.location ?? '' };
  }

  /** Calls the service's callback with the URL the provider redirected to (path and query only). */
  callback(url: URL): Promise<LightMyRequestResponse> {
    return this.inject('GET', `${url.pathname}${url.search}`);
  }

  /** A whole sign-in: login, the provider's redirects, the callback; returns the callback's answer. */
  async signIn(key: string, redirectUrl: string): Promise<LightMyRequestResponse> {
    const { location } = await this.startLogin(key);
    return this.callback(await this.atProvider(location, redirectUrl));
  }

  /** `POST /api/auth/refresh` with the refresh cookie. */
  refresh(): Promise<LightMyRequestResponse> {
    return this.inject('POST', '/api/auth/refresh');
  }
}
