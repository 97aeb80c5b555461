import { executorAggregate } from '../../commands/executor.js';
import { integrationAggregate } from '../../commands/integration.js';
import { secretAggregate } from '../../commands/secret.js';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { storageAggregate } from '../../commands/storage.js';
import { templateAggregate } from '../../commands/template.js';
import { workspaceAggregate } from '../../commands/workspace.js';
import { teamAggregate } from '../../commands/team.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import type { SourceCodeVersionFields } from '../../events/source-code-version.js';
import type { EntityDeclaration } from '../../model/entity.js';
import { executorEntity } from '../../model/executor.js';
import { integrationEntity } from '../../model/integration.js';
import type { PermissionResource } from '../../model/permissions.js';
import { secretEntity } from '../../model/secret.js';
import { sourceCodeEntity } from '../../model/source-code.js';
import { sourceCodeVersionEntity, sourceCodeVersionIdentifier } from '../../model/source-code-version.js';
import { storageEntity } from '../../model/storage.js';
import { templateEntity } from '../../model/template.js';
import { workspaceEntity } from '../../model/workspace.js';
import { teamEntity } from '../../model/team.js';
import type { Services } from '../../services.js';
import { entityInput } from '../entity-input.js';
import { withIntegrationKinds } from '../integration-kind.js';
import { catalogWrites, lifecycleWrites, parseAction } from './catalog.js';
import { commandDeps, type WriteCall, type WriteOperations } from './write.js';
import { webhookAggregate } from '../../commands/webhook.js';
import { loadAggregate } from '../../commands/handler.js';
import { WEBHOOK_ACTIONS, WEBHOOK_KINDS, webhookEntity } from '../../model/webhook.js';
import { redrive } from '../../delivery/cursors.js';
import { authorize, principalOf } from '../authorize.js';
import { allowedRanges, hasPrivateAddressLiteral } from '../../auth/sso/private-addresses.js';
import { unprocessable } from '../../errors.js';

/** The declaration's permission resource and projection (every catalog kind is a permission resource). */
const targetOf = <A>(entity: EntityDeclaration, aggregate: A) => ({
  resource: entity.kind as PermissionResource,
  projection: entity.table,
  owned: 'ownerId' in entity.fields,
  aggregate,
});

/** A source code's identifier is its URL (one sent is checked against it by the write model). */
function sourceCodeWrites(services: Services): WriteOperations {
  const input = withIntegrationKinds(commandDeps(services), sourceCodeEntity, entityInput(sourceCodeEntity));
  return catalogWrites(services, targetOf(sourceCodeEntity, sourceCodeAggregate), {
    async parseCreate(body) {
      const data = await input.parseCreate(body);
      return { ...data, identifier: data.identifier ?? data.sourceCodeUrl };
    },
    async parsePatch(body, current: SourceCodeFields) {
      const changes = await input.parsePatch(body, current);
      const derived = changes.identifier ?? changes.sourceCodeUrl;
      return derived === undefined ? changes : { ...changes, identifier: derived };
    },
  });
}

/** A version's identifier is derived from the folder and the tag or branch (re-derived when one of them changes). */
function sourceCodeVersionWrites(services: Services): WriteOperations {
  const input = entityInput(sourceCodeVersionEntity);
  return catalogWrites(services, targetOf(sourceCodeVersionEntity, sourceCodeVersionAggregate), {
    parseCreate(body) {
      const data = input.parseCreate(body);
      return { ...data, identifier: data.identifier ?? sourceCodeVersionIdentifier(data) };
    },
    parsePatch(body, current: SourceCodeVersionFields) {
      const changes = input.parsePatch(body, current);
      const moved =
        changes.sourceCodeFolder !== undefined || changes.sourceCodeVersion !== undefined || changes.sourceCodeBranch !== undefined;
      const derived = changes.identifier ?? (moved ? sourceCodeVersionIdentifier({ ...current, ...changes }) : undefined);
      return derived === undefined ? changes : { ...changes, identifier: derived };
    },
  });
}

/**
 * A webhook is written by holders of `webhook:write` (every kind's admin holds it) who administer
 * every kind it asks for (no kinds: every kind), before and after the change: it carries those
 * kinds' events out of the service.
 */
function webhookWrites(services: Services): WriteOperations {
  const input = entityInput(webhookEntity);
  const inAllowedRange = allowedRanges(services.config.WEBHOOK_ALLOWED_PRIVATE_RANGES);
  /** A URL written as a private address is refused at once (names are checked at each delivery). */
  const refusePrivateUrl = (url: string | undefined): void => {
    if (url === undefined || !hasPrivateAddressLiteral(url) || inAllowedRange(new URL(url).hostname)) return;
    const message = 'is a private, loopback or link-local address; an operator may allow its range (WEBHOOK_ALLOWED_PRIVATE_RANGES)';
    throw unprocessable(`url ${message}`, [{ field: 'url', message }]);
  };
  const administersKinds = (call: WriteCall, kinds: readonly string[]): void => {
    for (const kind of kinds.length === 0 ? WEBHOOK_KINDS : kinds) authorize(call.request, `${kind as PermissionResource}:admin`);
  };
  const writes = catalogWrites(services, targetOf(webhookEntity, webhookAggregate), {
    parseCreate: (body, call) => {
      const data = input.parseCreate(body);
      administersKinds(call, data.entityKinds);
      refusePrivateUrl(data.url);
      return data;
    },
    parsePatch: (body, current, call) => {
      administersKinds(call, current.entityKinds);
      const changes = input.parsePatch(body, current);
      if (changes.entityKinds !== undefined) administersKinds(call, changes.entityKinds);
      refusePrivateUrl(changes.url);
      return changes;
    },
  });
  const administersCurrent = async (call: WriteCall, id: string): Promise<void> => {
    const { state } = await loadAggregate(commandDeps(services), webhookAggregate, id);
    if (state.status === 'active') administersKinds(call, state.fields.entityKinds);
  };
  return {
    ...writes,
    actions: WEBHOOK_ACTIONS,
    act: async (call, id, action, body) => {
      const parsed = parseAction(WEBHOOK_ACTIONS, action);
      await administersCurrent(call, id);
      if (parsed !== 'redrive') return writes.act(call, id, parsed, body);
      // The delivery state is not an entity's: re-driving moves the cursor, and says so in the log.
      authorize(call.request, 'webhook:write');
      if (await redrive(services.pool, id))
        services.log.info({ webhookId: id, by: principalOf(call.request)?.userId }, 'webhook re-driven');
      return { id, deleted: false };
    },
    remove: async (call, id) => {
      await administersCurrent(call, id);
      return writes.remove(call, id);
    },
  };
}

/** The writes of the declared kinds besides resources (./resources.ts), by kind. */
export function catalogEntityWrites(services: Services) {
  const deps = commandDeps(services);
  return {
    template: catalogWrites(services, targetOf(templateEntity, templateAggregate), entityInput(templateEntity)),
    integration: catalogWrites(services, targetOf(integrationEntity, integrationAggregate), entityInput(integrationEntity)),
    secret: catalogWrites(
      services,
      targetOf(secretEntity, secretAggregate),
      withIntegrationKinds(deps, secretEntity, entityInput(secretEntity)),
    ),
    workspace: catalogWrites(
      services,
      targetOf(workspaceEntity, workspaceAggregate),
      withIntegrationKinds(deps, workspaceEntity, entityInput(workspaceEntity)),
    ),
    source_code: sourceCodeWrites(services),
    source_code_version: sourceCodeVersionWrites(services),
    storage: lifecycleWrites(
      services,
      targetOf(storageEntity, storageAggregate),
      withIntegrationKinds(deps, storageEntity, entityInput(storageEntity)),
    ),
    executor: lifecycleWrites(services, targetOf(executorEntity, executorAggregate), entityInput(executorEntity)),
    team: catalogWrites(services, targetOf(teamEntity, teamAggregate), entityInput(teamEntity)),
    webhook: webhookWrites(services),
  } satisfies Record<string, WriteOperations>;
}
