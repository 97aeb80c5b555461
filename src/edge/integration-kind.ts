import type { CommandDeps } from '../commands/handler.js';
import { loadAggregate } from '../commands/handler.js';
import { integrationAggregate } from '../commands/integration.js';
import type { EntityInput } from './entity-input.js';
import { AppError } from '../errors.js';
import { idFields, type EntityDeclaration, type IntegrationKindRule, type StoredFields } from '../model/entity.js';

/**
 * An entity that works through an integration needs one of the right kind (a cloud integration of
 * the same provider for storages and cloud secrets, a git one for repositories and source codes): 422
 * naming the field otherwise. Checking outside the command's append is safe because an
 * integration's type and provider never change; whether it exists and is enabled is the command
 * handler's check, so every relation reports those in the same words.
 */
async function requireIntegrationKind(
  deps: CommandDeps,
  integrationId: string,
  rule: IntegrationKindRule,
  provider: string,
  noun: string,
  field: string,
): Promise<void> {
  const { state } = await loadAggregate(deps, integrationAggregate, integrationId);
  if (state.status !== 'active') return;
  const { integrationType, integrationProvider } = state.fields;
  if (integrationType === rule.type && integrationProvider === provider) return;
  const message =
    `integration ${integrationId} is a ${integrationType} integration of provider ${integrationProvider}; ${provider} ` +
    `${noun} need a ${rule.type} integration of provider ${provider}`;
  throw new AppError('INVALID_REFERENCE', `invalid references: ${field}`, { errors: [{ field, message }] });
}

/**
 * The entity's input with its declared integration-kind rules checked after parsing: on create for
 * every integration id, on update for one that changes (the provider is immutable, so a match
 * checked once stays true). Entities without such a rule get their input unchanged.
 */
export function withIntegrationKinds<E extends EntityDeclaration>(deps: CommandDeps, entity: E, input: EntityInput<E>) {
  const rules = idFields(entity).flatMap(([field, declared]) =>
    declared.integrationKind ? [{ field, rule: declared.integrationKind }] : [],
  );
  const noun = entity.plural.replaceAll('_', ' ');
  const check = async (values: Readonly<Record<string, unknown>>, provided: Readonly<Record<string, unknown>>): Promise<void> => {
    for (const { field, rule } of rules) {
      const id = provided[field];
      const provider = String(values[rule.providerField]);
      if (typeof id === 'string' && !rule.except?.includes(provider)) await requireIntegrationKind(deps, id, rule, provider, noun, field);
    }
  };
  return {
    async parseCreate(body: unknown) {
      const data = input.parseCreate(body);
      await check(data, data);
      return data;
    },
    async parsePatch(body: unknown, current: StoredFields<E>) {
      const changes = input.parsePatch(body, current);
      const changed = Object.fromEntries(
        Object.entries(changes).filter(([key, value]) => value !== (current as Record<string, unknown>)[key]),
      );
      await check(current, changed);
      return changes;
    },
  };
}
