import { loadAggregate, type CommandDeps } from '../../commands/handler.js';
import { authProviderAggregate } from '../../commands/auth-provider.js';
import type { Db } from '../../storage/kysely.js';
import { AppError } from '../../errors.js';
import type { AuthProviderType } from '../../events/auth-provider.js';
import { providerConfigurationSchemas, type ProviderConfiguration } from '../../commands/auth-provider-config.js';

/** A provider as sign-in needs it: the decrypted, validated configuration of its type. */
export interface LoadedProvider<T extends AuthProviderType = AuthProviderType> {
  readonly id: string;
  readonly key: string;
  readonly type: T;
  readonly name: string;
  readonly enabled: boolean;
  readonly filterByDomain: readonly string[];
  /** Read-model revision: caches built from the configuration are keyed by it. */
  readonly revision: number;
  readonly configuration: ProviderConfiguration<T>;
}

interface Row {
  id: string;
  key: string;
  type: string;
  name: string;
  enabled: boolean;
  filter_by_domain: string[];
  revision: number;
}

/**
 * Decrypted configurations by provider id and revision. The read model holds only masked secrets, so
 * the configuration comes from the provider's stream; a changed provider has a new revision and is
 * read again.
 */
export class ProviderConfigurations {
  private readonly cache = new Map<string, { revision: number; configuration: unknown }>();

  constructor(private readonly deps: CommandDeps & { readonly db: Db }) {}

  /** The non-deleted provider with this key, or undefined. */
  async byKey(key: string): Promise<LoadedProvider | undefined> {
    const row = await this.rows().where('key', '=', key).executeTakeFirst();
    return row && this.load(row);
  }

  /** The enabled providers of one type, oldest first. */
  async enabledOfType<T extends AuthProviderType>(type: T): Promise<LoadedProvider<T>[]> {
    const rows = await this.rows().where('type', '=', type).where('enabled', '=', true).orderBy('created_at').orderBy('id').execute();
    return Promise.all(rows.map((row) => this.load(row) as Promise<LoadedProvider<T>>));
  }

  private rows() {
    return this.deps.db
      .selectFrom('auth_providers')
      .select(['id', 'key', 'type', 'name', 'enabled', 'filter_by_domain', 'revision'])
      .where('deleted_at', 'is', null);
  }

  private async load(row: Row): Promise<LoadedProvider> {
    const type = row.type as AuthProviderType;
    const base = {
      id: row.id,
      key: row.key,
      type,
      name: row.name,
      enabled: row.enabled,
      filterByDomain: row.filter_by_domain,
      revision: row.revision,
    };
    const cached = this.cache.get(row.id);
    if (cached?.revision === row.revision) return { ...base, configuration: cached.configuration as ProviderConfiguration };
    const { state } = await loadAggregate(this.deps, authProviderAggregate, row.id);
    if (state.status !== 'active') throw new AppError('UNAVAILABLE', `auth provider ${row.key} is being changed; try again`);
    const parsed = providerConfigurationSchemas[type].safeParse(state.fields.configuration);
    // Stored configurations were validated when written; one that no longer parses is a bug or an old shape.
    if (!parsed.success) throw new AppError('INTERNAL', `the stored configuration of auth provider ${row.key} is invalid`);
    this.cache.set(row.id, { revision: row.revision, configuration: parsed.data });
    return { ...base, configuration: parsed.data };
  }
}
