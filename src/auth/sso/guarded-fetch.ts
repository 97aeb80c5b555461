import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { allowedRanges, isPrivateAddress } from './private-addresses.js';

/** What a fetch may resolve a host name to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to every address it has (node's resolver; tests pass their own). */
export type Resolve = (hostname: string) => Promise<readonly ResolvedAddress[]>;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A fetch refused because the host is, or resolves to, a private, loopback or link-local address. */
export class PrivateAddressRefused extends Error {
  override readonly name = 'PrivateAddressRefused';
  readonly address: string;

  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback or link-local address`);
    this.address = address;
  }
}

/** What a guarded request may carry: what jose and openid-client hand their `customFetch`. */
export interface GuardedRequest {
  readonly method?: string;
  readonly headers?: Headers | Readonly<Record<string, string>>;
  readonly body?: string | URLSearchParams | Uint8Array | ArrayBuffer | null;
  readonly signal?: AbortSignal;
  /** Redirects are never followed, whatever is asked (a redirect could lead to a private address). */
  readonly redirect?: string;
}

/** A fetch to a URL an administrator configured, behind the private-address guard. */
export type GuardedFetch = (url: string | URL, init?: GuardedRequest) => Promise<Response>;

/** The fetch jose calls for a remote JWKS (its `customFetch` option). */
export type JwksFetch = GuardedFetch;

/** Largest answer read (a key set, a token response or a user profile is a few kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

/** A body as bytes for node:http, or undefined. */
function bodyBytes(body: GuardedRequest['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/**
 * A fetch for URLs an administrator configured (identity providers' discovery, token, user and key
 * set endpoints; a developer portal's JWKS): unless `allowPrivate`, it refuses a host that is, or
 * resolves to, a private, loopback or link-local address (SSRF: the cloud metadata service, the
 * database port, or a client secret posted to a listener on the host). The check is made on the
 * addresses the name resolves to at fetch time, and the connection goes to exactly those addresses
 * (the lookup is pinned), so a name that answers a public address to the check and a private one to
 * the connection (DNS rebinding) gets nowhere. No redirects are followed; the answer is capped at 1 MiB.
 */
export function guardedFetch(options: {
  readonly allowPrivate: boolean;
  readonly resolve?: Resolve;
  /** CIDR ranges (`10.20.0.0/16`) whose addresses are allowed although private: an operator's choice. */
  readonly allowedRanges?: readonly string[];
}): GuardedFetch {
  const resolve = options.resolve ?? systemResolve;
  const isAllowed = allowedRanges(options.allowedRanges ?? []);
  return async (url, init = {}) => {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolve(host);
    if (addresses.length === 0) throw new PrivateAddressRefused(host, 'no address');
    if (!options.allowPrivate) {
      const refused = addresses.find(({ address }) => isPrivateAddress(address) && !isAllowed(address));
      if (refused) throw new PrivateAddressRefused(host, refused.address);
    }
    const [first] = addresses as [ResolvedAddress, ...ResolvedAddress[]];
    // The connection may only use the addresses just checked.
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all)
        callback(
          null,
          addresses.map(({ address, family }) => ({ address, family })),
        );
      else callback(null, first.address, first.family);
    };
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolvePromise, reject) => {
      const body = bodyBytes(init.body);
      const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers) : { ...init.headers };
      if (body !== undefined) headers['content-length'] = String(body.length);
      const request = client.request(target, { method: init.method ?? 'GET', headers, signal: init.signal, lookup: pinned }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            response.destroy(new Error(`the answer of ${target.origin} is larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) => reject(new TypeError(`fetch of ${target.origin} failed`, { cause: error })));
        response.on('end', () => {
          const status = response.statusCode ?? 502;
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined) headers.set(name, [value].flat().join(', '));
          const bodyless = status === 204 || status === 205 || status === 304 || status < 200;
          resolvePromise(new Response(bodyless ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      // As fetch does: a timeout rejects with the signal's reason (jose's JWKSTimeout), any other
      // network failure with a TypeError.
      request.on('error', (error) =>
        reject(init.signal?.aborted ? (init.signal.reason as Error) : new TypeError(`fetch of ${target.origin} failed`, { cause: error })),
      );
      request.end(body);
    });
  };
}
