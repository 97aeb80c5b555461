/**
 * Whether the service may talk plain http to an identity provider URL. https always; http only to
 * a loopback address (a provider running beside the service, or a test's), or anywhere when the
 * operator opts in with `SSO_ALLOW_INSECURE_HTTP=true` (e.g. an identity provider inside a cluster
 * network). Tokens and client secrets travel over these connections, so the default is strict.
 */
export function allowsPlainHttp(url: string | URL, allowInsecureHttp: boolean): boolean {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol !== 'http:') return false;
  return allowInsecureHttp || isLoopback(parsed.hostname);
}

/** `localhost`, 127.0.0.0/8 and ::1. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Whether every URL is https, or plain http the policy allows. */
export const reachable = (urls: readonly (string | URL)[], allowInsecureHttp: boolean): boolean =>
  urls.every((url) => new URL(url).protocol === 'https:' || allowsPlainHttp(url, allowInsecureHttp));
