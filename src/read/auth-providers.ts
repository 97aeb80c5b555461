import type { Selectable } from 'kysely';
import { callbackUrl, SSO_TYPES } from '../commands/auth-provider-config.js';
import type { AuthProviderType } from '../events/auth-provider.js';
import { maskConfiguration } from '../projections/auth-providers.js';
import type { Db } from '../storage/kysely.js';
import type { AuthProvidersTable } from '../storage/schema.js';
import { authProviderEntity } from '../model/auth-provider.js';
import { accountView, accountViewColumns, type AccountView } from './accounts.js';

/** An auth provider as administrators see it (src/model/auth-provider.ts): secrets masked, plus the URL to register at the IdP. */
export type AuthProviderView = AccountView<typeof authProviderEntity> & {
  /** Where the identity provider sends users back (github, google, microsoft); null otherwise. */
  readonly callbackUrl: string | null;
};

/** One entry of the login page's list (public: no configuration, no ids). */
export interface LoginOption {
  readonly key: string;
  readonly type: AuthProviderType;
  readonly name: string;
  /** Where the login starts; null for providers without an interactive login (tokens, portal). */
  readonly loginUrl: string | null;
}

/** The columns a view needs (every column bar the tombstone). */
export const authProviderViewColumns = accountViewColumns(authProviderEntity) as (keyof AuthProvidersTable)[];

const fieldsView = accountView(authProviderEntity);

/** A read row in the API's shape; the configuration is masked again so no row can ever show a secret. */
export const toAuthProviderView = (
  row: Pick<Selectable<AuthProvidersTable>, 'type' | 'key' | 'configuration'>,
  baseUrl: string,
): AuthProviderView => ({
  ...fieldsView(row),
  configuration: maskConfiguration(row.configuration),
  callbackUrl: SSO_TYPES.includes(row.type) ? callbackUrl(baseUrl, row.key) : null,
});

/** The non-deleted provider with this id, as a view. */
export async function findAuthProvider(db: Db, id: string, baseUrl: string): Promise<AuthProviderView | undefined> {
  const row = await db
    .selectFrom('auth_providers')
    .select(authProviderViewColumns)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && toAuthProviderView(row, baseUrl);
}

/** Where the login through a provider starts, relative to the service's base URL. */
export function loginUrl(type: AuthProviderType, key: string): string | null {
  if (SSO_TYPES.includes(type)) return `/api/auth/${key}/login`;
  if (type === 'guest') return '/api/auth/guest/login';
  if (type === 'svc_service_account') return '/api/auth/service_account/token';
  return null;
}

/** What the login page offers: the enabled providers, oldest first. */
export async function listLoginOptions(db: Db): Promise<LoginOption[]> {
  const rows = await db
    .selectFrom('auth_providers')
    .select(['key', 'type', 'name'])
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => {
    const type = r.type;
    return { key: r.key, type, name: r.name, loginUrl: loginUrl(type, r.key) };
  });
}
