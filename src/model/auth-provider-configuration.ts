import { z } from 'zod';

/** Every auth provider type. */
export const AUTH_PROVIDER_TYPES = [
  'github',
  'google',
  'microsoft',
  'backstage',
  'personal_access_token',
  'svc_service_account',
  'guest',
] as const;
type AuthProviderType = (typeof AUTH_PROVIDER_TYPES)[number];

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
