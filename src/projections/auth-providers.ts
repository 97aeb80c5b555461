import type { Selectable } from 'kysely';
import type { AuthProvidersTable } from '../storage/schema.js';
import type { DecodedEvent } from '../events/codec.js';
import { authProviderEvents, PROVIDER_SECRET_KEYS, type AuthProviderEvent } from '../events/auth-provider.js';
import { redactSecrets } from '../events/secret-fields.js';
import { authProviderEntity } from '../model/auth-provider.js';
import { accountProjection } from './account-projection.js';

/** An `auth_providers` row; secret configuration values are stored masked, never in clear. */
export type AuthProviderRow = Omit<Selectable<AuthProvidersTable>, 'created_at' | 'updated_at' | 'deleted_at'> & {
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

/** The configuration as anyone may see it: each secret present is "********". */
export const maskConfiguration = (configuration: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  redactSecrets(configuration, PROVIDER_SECRET_KEYS);

/** Enabling, disabling and deleting (creation and updates are the declaration's, masked as it says). */
function evolve(row: AuthProviderRow, decoded: DecodedEvent): AuthProviderRow {
  const event = decoded.event as AuthProviderEvent;
  switch (event.type) {
    case 'AuthProviderEnabled':
      return { ...row, enabled: true };
    case 'AuthProviderDisabled':
      return { ...row, enabled: false };
    case 'AuthProviderDeleted':
      return { ...row, deleted_at: row.updated_at };
    default:
      return row;
  }
}

/** The auth providers read model (src/model/auth-provider.ts; secret configuration masked). */
export const authProvidersProjection = accountProjection<AuthProviderRow>(authProviderEntity, {
  created: 'AuthProviderCreated',
  updated: 'AuthProviderUpdated',
  handles: authProviderEvents.map((d) => d.type),
  evolve,
});
