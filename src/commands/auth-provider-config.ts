import { z } from 'zod';
import { AppError, type FieldIssue } from '../errors.js';
import type { AuthProviderType } from '../events/auth-provider.js';
import { REDACTED, restoreRedacted } from '../events/secret-fields.js';
import { zodIssues } from '../validation.js';
import {
  GITHUB_DEFAULT_ENDPOINTS,
  GOOGLE_DEFAULT_ISSUER,
  isDnsName,
  microsoftDefaultIssuer,
  providerConfigurationSchemas,
  type ProviderConfiguration,
} from '../model/auth-provider-configuration.js';

// Declared with the auth providers (../model/auth-provider.ts); the checks below apply them.
export { GITHUB_DEFAULT_ENDPOINTS, GOOGLE_DEFAULT_ISSUER, isDnsName, microsoftDefaultIssuer, providerConfigurationSchemas };
export type { ProviderConfiguration };

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
