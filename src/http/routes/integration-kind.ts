import type { CommandDeps } from '../../commands/handler.js';
import { loadAggregate } from '../../commands/handler.js';
import { integrationAggregate } from '../../commands/integration.js';
import { AppError } from '../../errors.js';

/**
 * An entity that works through an integration needs one of the right kind (a cloud integration of
 * the same provider for storages and cloud secrets, a git one for workspaces and source codes): 422
 * naming the field otherwise. Checking outside the command's append is safe because an
 * integration's type and provider never change; whether it exists and is enabled is the command
 * handler's check, so every relation reports those in the same words. Nothing to check without an id.
 */
export async function requireIntegrationKind(
  deps: CommandDeps,
  integrationId: string | null | undefined,
  wanted: { readonly type: 'cloud' | 'git'; readonly provider: string; readonly users: string },
  field = 'integrationId',
): Promise<void> {
  if (integrationId === null || integrationId === undefined) return;
  const { state } = await loadAggregate(deps, integrationAggregate, integrationId);
  if (state.status !== 'active') return;
  const { integrationType, integrationProvider } = state.fields;
  if (integrationType === wanted.type && integrationProvider === wanted.provider) return;
  const message = `integration ${integrationId} is a ${integrationType} integration of provider ${integrationProvider}; ${wanted.users} need a ${wanted.type} integration of provider ${wanted.provider}`;
  throw new AppError('UNPROCESSABLE', `invalid references: ${field}`, { errors: [{ field, message }] });
}
