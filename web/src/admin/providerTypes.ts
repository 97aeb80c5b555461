import type { ConfigKey } from '../common/ConfigurationInputs';

/** Auth provider types (docs/contract.md §5) with their configuration keys, as src/auth/provider-config.ts checks them. */
export const PROVIDER_TYPES = [
  'github',
  'google',
  'microsoft',
  'backstage',
  'personal_access_token',
  'svc_service_account',
  'guest',
] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const PROVIDER_TYPE_NAMES: Readonly<Record<ProviderType, string>> = {
  github: 'GitHub',
  google: 'Google',
  microsoft: 'Microsoft Entra ID',
  backstage: 'Backstage',
  personal_access_token: 'Personal access tokens',
  svc_service_account: 'Service accounts',
  guest: 'Guest (insecure)',
};

/** Types whose users sign in through a browser redirect: they have a callback URL to register. */
export const SSO_TYPES: readonly ProviderType[] = ['github', 'google', 'microsoft'];

/** How many e-mail domains `filterByDomain` takes: one, a list, or none. */
export const DOMAIN_FILTER: Readonly<Record<ProviderType, 'one' | 'list' | 'none'>> = {
  github: 'one',
  google: 'list',
  microsoft: 'one',
  backstage: 'none',
  personal_access_token: 'none',
  svc_service_account: 'none',
  guest: 'none',
};

const redirectUrl: ConfigKey = {
  key: 'redirectUrl',
  label: 'Redirect URL',
  required: true,
  helperText: 'Where the identity provider sends users back: the callback URL below.',
};

export const PROVIDER_CONFIG: Readonly<Record<ProviderType, readonly ConfigKey[]>> = {
  github: [
    {
      key: 'clientId',
      label: 'Client ID',
      required: true,
      helperText: 'From the GitHub OAuth app (Settings → Developer settings → OAuth Apps).',
    },
    { key: 'clientSecret', label: 'Client secret', required: true, secret: true },
    redirectUrl,
    {
      key: 'authorizeUrl',
      label: 'Authorize URL (GitHub Enterprise)',
      helperText: 'Optional; default https://github.com/login/oauth/authorize.',
    },
    {
      key: 'tokenUrl',
      label: 'Token URL (GitHub Enterprise)',
      helperText: 'Optional; default https://github.com/login/oauth/access_token.',
    },
    { key: 'apiUrl', label: 'API URL (GitHub Enterprise)', helperText: 'Optional; default https://api.github.com.' },
  ],
  google: [
    { key: 'clientId', label: 'Client ID', required: true, helperText: 'OAuth client of type "Web application" in Google Cloud console.' },
    { key: 'clientSecret', label: 'Client secret', required: true, secret: true },
    redirectUrl,
    {
      key: 'issuer',
      label: 'Issuer',
      helperText: 'Optional; default https://accounts.google.com. Sign-in asks for offline access to re-check the account on refresh.',
    },
  ],
  microsoft: [
    { key: 'clientId', label: 'Application (client) ID', required: true },
    { key: 'clientSecret', label: 'Client secret', required: true, secret: true, helperText: "The secret's Value (not its Secret ID)." },
    {
      key: 'tenantId',
      label: 'Directory (tenant) ID',
      required: true,
      helperText: 'A GUID, or a tenant domain such as contoso.onmicrosoft.com.',
    },
    redirectUrl,
    { key: 'issuer', label: 'Issuer', helperText: 'Optional; default https://login.microsoftonline.com/<tenant>/v2.0.' },
  ],
  backstage: [
    {
      key: 'privateKey',
      label: 'Shared secret (HS256)',
      secret: true,
      helperText: 'At least 32 characters. Give this, the JWKS URL, or both.',
    },
    { key: 'jwksUrl', label: 'JWKS URL', helperText: 'http://<portal>/api/auth/.well-known/jwks.json' },
  ],
  personal_access_token: [
    {
      key: 'maxLifetimeDays',
      label: 'Maximum lifetime (days)',
      number: true,
      defaultValue: 90,
      helperText: '1–3650; every token must expire within it.',
    },
  ],
  svc_service_account: [
    { key: 'tokenTtlSeconds', label: 'Token lifetime (seconds)', number: true, defaultValue: 3600, helperText: '60–86400.' },
  ],
  guest: [{ key: 'role', label: 'Role of the guest identity', choices: ['default', 'infra', 'super'], defaultValue: 'default' }],
};
