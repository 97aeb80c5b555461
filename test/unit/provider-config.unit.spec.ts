import { describe, expect, it } from 'vitest';
import {
  callbackUrl,
  checkFilterByDomain,
  checkProviderConfiguration,
  GOOGLE_DEFAULT_ISSUER,
  microsoftDefaultIssuer,
  parseFilterByDomain,
  parseProviderConfiguration,
} from '../../src/commands/auth-provider-config.js';
import { AppError, type FieldIssue } from '../../src/errors.js';
import type { AuthProviderType } from '../../src/events/auth-provider.js';

const MASK = '********';
const REDIRECT = 'https://catalog.example.com/api/auth/github/callback';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const SHARED_SECRET = 's'.repeat(32);

/** The field issues a configuration is refused with (fails the test when it is accepted). */
function refusal(type: AuthProviderType, input: unknown, previous?: Record<string, unknown>): readonly FieldIssue[] {
  const checked = checkProviderConfiguration(type, input, previous);
  if (checked.ok) throw new Error(`accepted: ${JSON.stringify(checked.value)}`);
  return checked.errors;
}

function domainRefusal(type: AuthProviderType, input: unknown): readonly FieldIssue[] {
  const checked = checkFilterByDomain(type, input);
  if (checked.ok) throw new Error(`accepted: ${JSON.stringify(checked.value)}`);
  return checked.errors;
}

describe('a github configuration', () => {
  const valid = { clientId: 'Iv1.abc', clientSecret: 'shh', redirectUrl: REDIRECT };

  it('is accepted with a client id, a client secret and a redirect URL', () => {
    expect(parseProviderConfiguration('github', valid)).toEqual(valid);
  });

  it('accepts endpoint overrides for GitHub Enterprise and tests', () => {
    const enterprise = {
      ...valid,
      authorizeUrl: 'https://ghe.example.com/login/oauth/authorize',
      tokenUrl: 'https://ghe.example.com/login/oauth/access_token',
      apiUrl: 'https://ghe.example.com/api/v3',
    };
    expect(parseProviderConfiguration('github', enterprise)).toEqual(enterprise);
  });

  it('names every missing field as required', () => {
    expect(refusal('github', {})).toEqual([
      { field: 'configuration.clientId', message: 'required' },
      { field: 'configuration.clientSecret', message: 'required' },
      { field: 'configuration.redirectUrl', message: 'required' },
    ]);
  });

  it('refuses empty values, a non-string secret and a redirect URL that is not absolute http(s)', () => {
    expect(refusal('github', { clientId: '  ', clientSecret: 42, redirectUrl: 'ftp://catalog.example.com/cb' })).toEqual([
      { field: 'configuration.clientId', message: 'must not be empty' },
      { field: 'configuration.clientSecret', message: 'must be a string' },
      { field: 'configuration.redirectUrl', message: 'must be an absolute http(s) URL' },
    ]);
    expect(refusal('github', { ...valid, redirectUrl: '/api/auth/github/callback' })).toEqual([
      { field: 'configuration.redirectUrl', message: 'must be an absolute http(s) URL' },
    ]);
  });

  it('refuses an override that is not a URL', () => {
    expect(refusal('github', { ...valid, apiUrl: 'api.github.com' })).toEqual([
      { field: 'configuration.apiUrl', message: 'must be an absolute http(s) URL' },
    ]);
  });

  it('refuses unknown keys one by one', () => {
    expect(refusal('github', { ...valid, x: 1, tenantId: TENANT })).toEqual([
      { field: 'configuration.x', message: 'unknown field' },
      { field: 'configuration.tenantId', message: 'unknown field' },
    ]);
  });

  it('refuses anything but a JSON object', () => {
    for (const input of [undefined, null, 'github', ['clientId'], 3]) {
      expect(refusal('github', input)).toEqual([{ field: 'configuration', message: 'must be a JSON object' }]);
    }
  });

  it('throws a VALIDATION error naming the fields when parsed', () => {
    const error: unknown = (() => {
      try {
        return parseProviderConfiguration('github', { clientId: 'a', redirectUrl: REDIRECT });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'VALIDATION',
      message: 'invalid body: configuration.clientSecret',
      errors: [{ field: 'configuration.clientSecret', message: 'required' }],
    });
  });
});

describe('a google configuration', () => {
  const valid = { clientId: '123.apps.googleusercontent.com', clientSecret: 'GOCSPX-x', redirectUrl: REDIRECT };

  it('gets Google as its issuer by default', () => {
    expect(parseProviderConfiguration('google', valid)).toEqual({ ...valid, issuer: GOOGLE_DEFAULT_ISSUER });
    expect(GOOGLE_DEFAULT_ISSUER).toBe('https://accounts.google.com');
  });

  it('keeps an issuer override', () => {
    expect(parseProviderConfiguration('google', { ...valid, issuer: 'http://127.0.0.1:9999' })).toEqual({
      ...valid,
      issuer: 'http://127.0.0.1:9999',
    });
  });

  it('refuses an issuer that is not a URL', () => {
    expect(refusal('google', { ...valid, issuer: 'accounts.google.com' })).toEqual([
      { field: 'configuration.issuer', message: 'must be an absolute http(s) URL' },
    ]);
  });
});

describe('a microsoft configuration', () => {
  const valid = { clientId: 'app-id', clientSecret: 'secret-value', tenantId: TENANT, redirectUrl: REDIRECT };

  it('gets the v2.0 issuer of its tenant by default', () => {
    expect(parseProviderConfiguration('microsoft', valid)).toEqual({
      ...valid,
      issuer: `https://login.microsoftonline.com/${TENANT}/v2.0`,
    });
  });

  it('accepts a tenant domain, lower-cased', () => {
    const parsed = parseProviderConfiguration('microsoft', { ...valid, tenantId: 'Contoso.onMicrosoft.com' });
    expect(parsed).toEqual({ ...valid, tenantId: 'contoso.onmicrosoft.com', issuer: microsoftDefaultIssuer('contoso.onmicrosoft.com') });
  });

  it('refuses a tenant that is neither a GUID nor a domain, such as "common"', () => {
    const message = 'must be the Directory (Tenant) ID (a GUID) or a tenant domain such as contoso.onmicrosoft.com';
    expect(refusal('microsoft', { ...valid, tenantId: 'common' })).toEqual([{ field: 'configuration.tenantId', message }]);
    expect(refusal('microsoft', { ...valid, tenantId: `${TENANT}x` })).toEqual([{ field: 'configuration.tenantId', message }]);
  });

  it('requires the tenant', () => {
    const { tenantId: _omitted, ...withoutTenant } = valid;
    expect(refusal('microsoft', withoutTenant)).toEqual([{ field: 'configuration.tenantId', message: 'required' }]);
  });

  it('keeps an issuer override, also when the tenant changes', () => {
    const previous = { ...valid, issuer: 'http://127.0.0.1:9999/tenant' };
    const next = { ...previous, clientSecret: MASK, tenantId: 'fabrikam.onmicrosoft.com' };
    expect(parseProviderConfiguration('microsoft', next, previous)).toEqual({ ...next, clientSecret: 'secret-value' });
  });

  it('derives the issuer again when the tenant changes and the old default issuer is sent back', () => {
    const previous = parseProviderConfiguration('microsoft', valid);
    const echoed = { ...previous, clientSecret: MASK, tenantId: 'fabrikam.onmicrosoft.com' };
    expect(parseProviderConfiguration('microsoft', echoed, previous).issuer).toBe(microsoftDefaultIssuer('fabrikam.onmicrosoft.com'));
  });
});

describe('a backstage configuration', () => {
  it('is accepted with the shared secret, the JWKS URL, or both', () => {
    const jwksUrl = 'http://portal.example.com/api/auth/.well-known/jwks.json';
    expect(parseProviderConfiguration('backstage', { privateKey: SHARED_SECRET })).toEqual({ privateKey: SHARED_SECRET });
    expect(parseProviderConfiguration('backstage', { jwksUrl })).toEqual({ jwksUrl });
    expect(parseProviderConfiguration('backstage', { privateKey: SHARED_SECRET, jwksUrl })).toEqual({ privateKey: SHARED_SECRET, jwksUrl });
  });

  it('needs at least one of them, named on the configuration itself', () => {
    expect(refusal('backstage', {})).toEqual([
      { field: 'configuration', message: 'needs privateKey (the shared secret), jwksUrl, or both' },
    ]);
  });

  it('refuses a shared secret shorter than 32 characters and a JWKS URL that is not one', () => {
    expect(refusal('backstage', { privateKey: 's'.repeat(31) })).toEqual([
      { field: 'configuration.privateKey', message: 'must be at least 32 characters (the shared HS256 secret)' },
    ]);
    expect(refusal('backstage', { jwksUrl: 'portal/jwks.json' })).toEqual([
      { field: 'configuration.jwksUrl', message: 'must be an absolute http(s) URL' },
    ]);
  });
});

describe('the token and guest configurations', () => {
  it('default to 90 days, 3600 seconds and the role default', () => {
    expect(parseProviderConfiguration('personal_access_token', {})).toEqual({ maxLifetimeDays: 90 });
    expect(parseProviderConfiguration('svc_service_account', {})).toEqual({ tokenTtlSeconds: 3600 });
    expect(parseProviderConfiguration('guest', {})).toEqual({ role: 'default' });
  });

  it('accept the bounds', () => {
    expect(parseProviderConfiguration('personal_access_token', { maxLifetimeDays: 1 })).toEqual({ maxLifetimeDays: 1 });
    expect(parseProviderConfiguration('personal_access_token', { maxLifetimeDays: 3650 })).toEqual({ maxLifetimeDays: 3650 });
    expect(parseProviderConfiguration('svc_service_account', { tokenTtlSeconds: 60 })).toEqual({ tokenTtlSeconds: 60 });
    expect(parseProviderConfiguration('svc_service_account', { tokenTtlSeconds: 86_400 })).toEqual({ tokenTtlSeconds: 86_400 });
    expect(parseProviderConfiguration('guest', { role: 'super' })).toEqual({ role: 'super' });
  });

  it('refuse values out of range, fractions and strings', () => {
    const days = (value: unknown) => refusal('personal_access_token', { maxLifetimeDays: value });
    expect(days(0)).toEqual([{ field: 'configuration.maxLifetimeDays', message: 'must be at least 1' }]);
    expect(days(3651)).toEqual([{ field: 'configuration.maxLifetimeDays', message: 'must be at most 3650' }]);
    expect(days(1.5)).toEqual([{ field: 'configuration.maxLifetimeDays', message: 'must be a whole number' }]);
    expect(days('30')).toEqual([{ field: 'configuration.maxLifetimeDays', message: 'must be a number' }]);
    expect(refusal('svc_service_account', { tokenTtlSeconds: 59 })).toEqual([
      { field: 'configuration.tokenTtlSeconds', message: 'must be at least 60' },
    ]);
    expect(refusal('svc_service_account', { tokenTtlSeconds: 86_401 })).toEqual([
      { field: 'configuration.tokenTtlSeconds', message: 'must be at most 86400' },
    ]);
  });

  it('refuse a guest role that does not exist', () => {
    expect(refusal('guest', { role: 'root' })).toEqual([{ field: 'configuration.role', message: 'must be one of default, infra, super' }]);
  });

  it('refuse keys of other types', () => {
    expect(refusal('guest', { role: 'infra', tokenTtlSeconds: 60 })).toEqual([
      { field: 'configuration.tokenTtlSeconds', message: 'unknown field' },
    ]);
  });
});

describe('a secret sent back masked', () => {
  const stored = { clientId: 'Iv1.abc', clientSecret: 'the-stored-secret', redirectUrl: REDIRECT };
  const noPrevious = '"********" keeps the stored secret, but none is stored: send the secret itself';

  it('keeps the stored secret', () => {
    expect(parseProviderConfiguration('github', { ...stored, clientId: 'Iv1.new', clientSecret: MASK }, stored)).toEqual({
      ...stored,
      clientId: 'Iv1.new',
    });
  });

  it('keeps the stored shared secret of a backstage provider', () => {
    expect(parseProviderConfiguration('backstage', { privateKey: MASK }, { privateKey: SHARED_SECRET })).toEqual({
      privateKey: SHARED_SECRET,
    });
  });

  it('is replaced by a new secret sent in clear', () => {
    expect(parseProviderConfiguration('github', { ...stored, clientSecret: 'rotated' }, stored)).toEqual({
      ...stored,
      clientSecret: 'rotated',
    });
  });

  it('is refused when no previous configuration is given', () => {
    expect(refusal('github', { ...stored, clientSecret: MASK })).toEqual([{ field: 'configuration.clientSecret', message: noPrevious }]);
  });

  it('is refused when the previous configuration holds no such secret', () => {
    expect(refusal('backstage', { privateKey: MASK }, { jwksUrl: 'https://portal.example.com/jwks.json' })).toEqual([
      { field: 'configuration.privateKey', message: noPrevious },
    ]);
  });

  it('is reported together with the other invalid fields, once for its own field', () => {
    expect(refusal('github', { clientSecret: MASK, redirectUrl: REDIRECT })).toEqual([
      { field: 'configuration.clientSecret', message: noPrevious },
      { field: 'configuration.clientId', message: 'required' },
    ]);
  });
});

describe('filterByDomain', () => {
  it('is lower-cased and trimmed', () => {
    expect(parseFilterByDomain('google', [' Example.COM ', 'corp.example.org'])).toEqual(['example.com', 'corp.example.org']);
  });

  it('defaults to no filter', () => {
    expect(parseFilterByDomain('github', undefined)).toEqual([]);
    expect(parseFilterByDomain('guest', [])).toEqual([]);
  });

  it('refuses e-mail addresses and names that are not DNS names, entry by entry', () => {
    expect(domainRefusal('google', ['example.com', '@example.com', 'localhost', 'exa_mple.com', '-a.example.com', 'example.123'])).toEqual([
      { field: 'filterByDomain[1]', message: 'must be a domain such as example.com, not an e-mail address (no @)' },
      { field: 'filterByDomain[2]', message: 'must be a domain name such as example.com' },
      { field: 'filterByDomain[3]', message: 'must be a domain name such as example.com' },
      { field: 'filterByDomain[4]', message: 'must be a domain name such as example.com' },
      { field: 'filterByDomain[5]', message: 'must be a domain name such as example.com' },
    ]);
  });

  it('refuses a domain listed twice, also when only the case differs', () => {
    expect(domainRefusal('google', ['example.com', 'EXAMPLE.com'])).toEqual([
      { field: 'filterByDomain[1]', message: 'repeats the domain example.com' },
    ]);
  });

  it('holds several domains for google but at most one for github and microsoft', () => {
    expect(parseFilterByDomain('google', ['a.example', 'b.example'])).toEqual(['a.example', 'b.example']);
    expect(parseFilterByDomain('github', ['a.example'])).toEqual(['a.example']);
    expect(domainRefusal('github', ['a.example', 'b.example'])).toEqual([
      { field: 'filterByDomain', message: 'a github provider filters by at most one domain' },
    ]);
    expect(domainRefusal('microsoft', ['a.example', 'b.example'])).toEqual([
      { field: 'filterByDomain', message: 'a microsoft provider filters by at most one domain' },
    ]);
  });

  it('is refused for providers that do not sign in with a verified e-mail', () => {
    expect(domainRefusal('guest', ['example.com'])).toEqual([
      { field: 'filterByDomain', message: 'only github, google, microsoft providers filter by e-mail domain; leave it empty for guest' },
    ]);
  });

  it('must be a list', () => {
    expect(domainRefusal('google', 'example.com')).toEqual([{ field: 'filterByDomain', message: 'must be a list of domains' }]);
  });
});

describe('the callback URL', () => {
  it('is the base URL plus /api/auth/{key}/callback', () => {
    expect(callbackUrl('https://catalog.example.com', 'github')).toBe('https://catalog.example.com/api/auth/github/callback');
    expect(callbackUrl('https://catalog.example.com/', 'corp-google')).toBe('https://catalog.example.com/api/auth/corp-google/callback');
  });
});
