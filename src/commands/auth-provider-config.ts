import { z } from 'zod';
import { AppError, type FieldIssue } from '../errors.js';
import type { AuthProviderType } from '../events/auth-provider.js';
import { REDACTED, restoreRedacted } from '../events/secret-fields.js';
import { zodIssues } from '../validation.js';

/**
 * What each auth provider type accepts as `configuration` (docs/contract.md §5), validated at the REST edge.
 * Unknown keys are refused; secrets (`clientSecret`, `privateKey`) are write-only and the mask
 * `"********"` sent back on an update keeps the stored value.
 */

// Built per field so a missing key says "required" rather than zod's generic type message.
const text = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `at most ${max} characters`);
const httpUrl = () =>
  z.url({
    protocol: /^https?$/,
    error: (issue) => (issue.input === undefined ? 'required' : 'must be an absolute http(s) URL'),
  });
const wholeNumber = (min: number, max: number, fallback: number) =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback);

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A DNS name with at least two labels (`example.com`), lower case, no trailing dot. */
export function isDnsName(name: string): boolean {
  const labels = name.split('.');
  return name.length <= 253 && labels.length >= 2 && labels.every((label) => DNS_LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '');
}

/** The issuer Microsoft's v2.0 endpoint uses for a tenant when no override is configured. */
export const microsoftDefaultIssuer = (tenantId: string): string => `https://login.microsoftonline.com/${tenantId}/v2.0`;

/** Google's issuer when the configuration does not override it. */
export const GOOGLE_DEFAULT_ISSUER = 'https://accounts.google.com';

/** github.com's endpoints, used when a github provider does not override them (GitHub Enterprise, tests). */
export const GITHUB_DEFAULT_ENDPOINTS = {
  authorizeUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  apiUrl: 'https://api.github.com',
} as const;

const object = <S extends z.core.$ZodLooseShape>(shape: S) => z.strictObject(shape, { error: 'must be a JSON object' });

const sso = { clientId: text(500), clientSecret: text(2000), redirectUrl: httpUrl() };

const github = object({ ...sso, authorizeUrl: httpUrl().optional(), tokenUrl: httpUrl().optional(), apiUrl: httpUrl().optional() });
/** The ID-token claim listing the user's groups (e.g. `groups`): its values make the user a member of the teams that name them. */
const groupsClaim = text(100).optional();
const google = object({ ...sso, issuer: httpUrl().default(GOOGLE_DEFAULT_ISSUER), groupsClaim });
const microsoft = object({
  ...sso,
  tenantId: text(253)
    .toLowerCase()
    .refine(
      (id) => GUID.test(id) || isDnsName(id),
      'must be the Directory (Tenant) ID (a GUID) or a tenant domain such as contoso.onmicrosoft.com',
    ),
  issuer: httpUrl().optional(),
  groupsClaim,
}).transform(({ issuer, ...rest }) => ({ ...rest, issuer: issuer ?? microsoftDefaultIssuer(rest.tenantId) }));
const backstage = object({
  privateKey: z
    .string({ error: 'must be a string' })
    .min(32, 'must be at least 32 characters (the shared HS256 secret)')
    .max(4096, 'at most 4096 characters')
    .optional(),
  jwksUrl: httpUrl().optional(),
}).refine((c) => c.privateKey !== undefined || c.jwksUrl !== undefined, 'needs privateKey (the shared secret), jwksUrl, or both');
const personalAccessToken = object({ maxLifetimeDays: wholeNumber(1, 3650, 90) });
const serviceAccount = object({ tokenTtlSeconds: wholeNumber(60, 86_400, 3600) });
const guest = object({
  role: z.enum(['default', 'infra', 'super'], { error: 'must be one of default, infra, super' }).default('default'),
});

/** The configuration schema of each provider type. */
export const providerConfigurationSchemas = {
  github,
  google,
  microsoft,
  backstage,
  personal_access_token: personalAccessToken,
  svc_service_account: serviceAccount,
  guest,
} as const satisfies Record<AuthProviderType, z.ZodType>;

/** A validated configuration of type `T`, defaults applied. */
export type ProviderConfiguration<T extends AuthProviderType = AuthProviderType> = z.output<(typeof providerConfigurationSchemas)[T]>;

/** The secret keys a type's configuration has (write-only, encrypted in the store). */
export const SECRET_KEYS_OF: Readonly<Record<AuthProviderType, readonly string[]>> = {
  github: ['clientSecret'],
  google: ['clientSecret'],
  microsoft: ['clientSecret'],
  backstage: ['privateKey'],
  personal_access_token: [],
  svc_service_account: [],
  guest: [],
};

/** The types whose users sign in through a browser redirect (and so have a callback URL). */
export const SSO_TYPES: readonly AuthProviderType[] = ['github', 'google', 'microsoft'];

/** The types that keep at most one domain in `filterByDomain` (the seed: "a single domain value"). */
const SINGLE_DOMAIN_TYPES: readonly AuthProviderType[] = ['github', 'microsoft'];

type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly FieldIssue[] };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Puts the stored secrets back where the input sends the mask. A mask with nothing stored is an
 * error: storing the literal mask as the secret would break sign-in silently.
 */
function restoreSecrets(
  type: AuthProviderType,
  input: Record<string, unknown>,
  previous: Readonly<Record<string, unknown>> | undefined,
): { restored: Record<string, unknown>; errors: FieldIssue[] } {
  const { restored, errors } = restoreRedacted(input, previous, SECRET_KEYS_OF[type], {
    fieldPrefix: 'configuration',
    message: `"${REDACTED}" keeps the stored secret, but none is stored: send the secret itself`,
  });
  // A client echoing the default issuer of the old tenant would otherwise pin it after a tenant change.
  const oldTenant = previous?.tenantId;
  if (type === 'microsoft' && typeof oldTenant === 'string' && restored.issuer === microsoftDefaultIssuer(oldTenant))
    delete restored.issuer;
  return { restored, errors };
}

/** Like {@link parseProviderConfiguration}, but returns the field issues instead of throwing. */
export function checkProviderConfiguration<T extends AuthProviderType>(
  type: T,
  input: unknown,
  previous?: Readonly<Record<string, unknown>>,
): Checked<ProviderConfiguration<T>> {
  const { restored, errors } = isRecord(input) ? restoreSecrets(type, input, previous) : { restored: input, errors: [] };
  const schema: z.ZodType = providerConfigurationSchemas[type];
  const result = schema.safeParse(restored);
  if (result.success && errors.length === 0) return { ok: true, value: result.data as ProviderConfiguration<T> };
  // The mask's own message says more than "too short" would about the same field.
  const masked = new Set(errors.map((e) => e.field));
  const issues = result.success ? [] : zodIssues(result.error, 'configuration').filter((e) => !masked.has(e.field));
  return { ok: false, errors: [...errors, ...issues] };
}

/**
 * Validates a provider's configuration for its type and applies the defaults. With `previous` (the
 * stored, decrypted configuration), a secret sent as `"********"` keeps its stored value.
 * @throws AppError `VALIDATION` listing every invalid `configuration.*` field
 */
export function parseProviderConfiguration<T extends AuthProviderType>(
  type: T,
  input: unknown,
  previous?: Readonly<Record<string, unknown>>,
): ProviderConfiguration<T> {
  const checked = checkProviderConfiguration(type, input, previous);
  if (checked.ok) return checked.value;
  throw invalid(checked.errors);
}

const domain = z
  .string({ error: 'must be a string' })
  .trim()
  .toLowerCase()
  .refine((d) => !d.includes('@'), 'must be a domain such as example.com, not an e-mail address (no @)')
  .refine((d) => d.includes('@') || isDnsName(d), 'must be a domain name such as example.com');

/** Like {@link parseFilterByDomain}, but returns the field issues instead of throwing. */
export function checkFilterByDomain(type: AuthProviderType, input: unknown): Checked<string[]> {
  const result = z
    .array(domain, { error: 'must be a list of domains' })
    .max(100, 'at most 100 domains')
    .safeParse(input ?? []);
  if (!result.success) return { ok: false, errors: zodIssues(result.error, 'filterByDomain') };
  const domains = result.data;
  const errors: FieldIssue[] = [];
  if (domains.length > 0 && !SSO_TYPES.includes(type)) {
    errors.push({
      field: 'filterByDomain',
      message: `only ${SSO_TYPES.join(', ')} providers filter by e-mail domain; leave it empty for ${type}`,
    });
  } else if (domains.length > 1 && SINGLE_DOMAIN_TYPES.includes(type)) {
    errors.push({ field: 'filterByDomain', message: `a ${type} provider filters by at most one domain` });
  }
  domains.forEach((d, index) => {
    if (domains.indexOf(d) !== index) errors.push({ field: `filterByDomain[${index}]`, message: `repeats the domain ${d}` });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: domains };
}

/**
 * Validates `filterByDomain` for a provider type: lower-cased DNS names, no duplicates, at most one
 * for github and microsoft, none for the types that do not sign in with a verified e-mail.
 * @throws AppError `VALIDATION` naming `filterByDomain` or the offending entry
 */
export function parseFilterByDomain(type: AuthProviderType, input: unknown): string[] {
  const checked = checkFilterByDomain(type, input);
  if (checked.ok) return checked.value;
  throw invalid(checked.errors);
}

/** The 400 for a list of field issues, worded like `parseInput`'s. */
export function invalid(errors: readonly FieldIssue[]): AppError {
  const fields = [...new Set(errors.map((e) => e.field))].join(', ');
  return new AppError('VALIDATION', `invalid body: ${fields}`, { errors });
}

/** The URL to register at the identity provider as the redirect (callback) URI of provider `key`. */
export const callbackUrl = (baseUrl: string, key: string): string => `${baseUrl.replace(/\/+$/, '')}/api/auth/${key}/callback`;
