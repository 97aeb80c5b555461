import type { Selectable } from 'kysely';
import type { AuthProvidersTable } from '../storage/schema.js';
import type { DecodedEvent } from '../events/codec.js';
import { authProviderEvents, PROVIDER_SECRET_KEYS, type AuthProviderEvent } from '../events/auth-provider.js';
import { redactSecrets } from '../events/secret-fields.js';
import { createdByColumns, rowProjection, touched } from './row-projection.js';
import { STREAMS } from '../events/streams.js';

/** An `auth_providers` row; secret configuration values are stored masked, never in clear. */
export type AuthProviderRow = Omit<Selectable<AuthProvidersTable>, 'created_at' | 'updated_at' | 'deleted_at'> & {
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

/** The configuration as anyone may see it: each secret present is "********". */
export const maskConfiguration = (configuration: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  redactSecrets(configuration, PROVIDER_SECRET_KEYS);

function evolve(row: AuthProviderRow | undefined, decoded: DecodedEvent): AuthProviderRow | undefined {
  const event = decoded.event as AuthProviderEvent;
  if (event.type === 'AuthProviderCreated') {
    const d = event.data;
    return {
      id: d.id,
      key: d.key,
      name: d.name,
      type: d.type,
      description: d.description,
      enabled: d.enabled,
      configuration: maskConfiguration(d.configuration),
      filter_by_domain: d.filterByDomain,
      ...createdByColumns(decoded),
      deleted_at: null,
    };
  }
  if (!row) return undefined;
  const next = touched(row, decoded);
  switch (event.type) {
    case 'AuthProviderUpdated': {
      const c = event.data.changes;
      return {
        ...next,
        ...(c.key !== undefined && { key: c.key }),
        ...(c.name !== undefined && { name: c.name }),
        ...(c.description !== undefined && { description: c.description }),
        ...(c.configuration !== undefined && { configuration: maskConfiguration(c.configuration) }),
        ...(c.filterByDomain !== undefined && { filter_by_domain: c.filterByDomain }),
      };
    }
    case 'AuthProviderEnabled':
      return { ...next, enabled: true };
    case 'AuthProviderDisabled':
      return { ...next, enabled: false };
    case 'AuthProviderDeleted':
      return { ...next, deleted_at: next.updated_at };
  }
}

/** The auth providers read model (secret configuration masked). */
export const authProvidersProjection = rowProjection<AuthProviderRow>({
  name: 'auth_providers',
  table: 'auth_providers',
  columns: {
    id: 'uuid',
    key: 'text',
    name: 'text',
    type: 'text',
    description: 'text',
    enabled: 'boolean',
    configuration: 'jsonb',
    filter_by_domain: 'text[]',
    creator_id: 'uuid',
    revision: 'integer',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    deleted_at: 'timestamptz',
  },
  links: [],
  handles: authProviderEvents.map((d) => d.type),
  rowId: (event) => STREAMS.auth_provider.parse(event.streamId),
  evolve,
});
