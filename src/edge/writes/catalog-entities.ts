import { integrationAggregate } from '../../commands/integration.js';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { teamAggregate } from '../../commands/team.js';
import type { IntegrationFields } from '../../events/integration.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import type { SourceCodeVersionFields } from '../../events/source-code-version.js';
import { integrationEntity } from '../../model/integration.js';
import { sourceCodeEntity } from '../../model/source-code.js';
import { sourceCodeVersionEntity, sourceCodeVersionIdentifier } from '../../model/source-code-version.js';
import { teamEntity } from '../../model/team.js';
import { aggregateOf } from '../../commands/declared.js';
import { DECLARED_ENTITIES, type DeclaredKind } from '../../model/catalog.js';
import type { EntityDeclaration } from '../../model/entity.js';
import type { Services } from '../../services.js';
import { resourceWrites } from './resources.js';
import { entityInput } from '../entity-input.js';
import { withIntegrationKinds } from '../integration-kind.js';
import { catalogWrites, lifecycleWrites, targetOf } from './catalog.js';
import { commandDeps, type WriteOperations } from './write.js';
import { privateUrlCheck } from './private-urls.js';
import { teamWrites } from './teams.js';
import { webhookWrites } from './webhooks.js';

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
 * A notification integration's addresses (Slack's `apiUrl`, an incoming webhook's `webhookUrl`) go
 * through the webhook URL check at save (docs/contract.md §11): a private address literal is a 422
 * at once rather than a failure at every notice.
 */
function integrationWrites(services: Services): WriteOperations {
  const input = entityInput(integrationEntity);
  const refusePrivate = privateUrlCheck(services.config.WEBHOOK_ALLOWED_PRIVATE_RANGES);
  const checkUrls = (configuration: Readonly<Record<string, unknown>> | undefined): void => {
    for (const key of ['apiUrl', 'webhookUrl'] as const) {
      const url = configuration?.[key];
      if (typeof url === 'string') refusePrivate(url, `configuration.${key}`);
    }
  };
  return catalogWrites(services, targetOf(integrationEntity, integrationAggregate), {
    parseCreate(body) {
      const data = input.parseCreate(body);
      if (data.integrationType === 'notification') checkUrls(data.configuration);
      return data;
    },
    parsePatch(body, current: IntegrationFields) {
      const changes = input.parsePatch(body, current);
      if (current.integrationType === 'notification') checkUrls(changes.configuration);
      return changes;
    },
  });
}

/**
 * The writes a declaration alone gives (docs/adding-a-kind.md): the kit's (catalog or lifecycle)
 * create, update, actions and delete, the declared input with its integration-kind rules, behind the
 * per-entity rule. A kind with writes of its own is in OWN_WRITES below.
 */
function declaredWrites(services: Services, entity: EntityDeclaration): WriteOperations {
  const input = withIntegrationKinds(commandDeps(services), entity, entityInput(entity));
  // The aggregate is the kind's (../../commands/declared.ts); its command type is the kit's over the declared fields.
  const target = targetOf(entity, aggregateOf(entity) as never);
  return entity.lifecycle ? lifecycleWrites(services, target, input as never) : catalogWrites(services, target, input as never);
}

/** The kinds whose writes add to what their declaration gives. */
const OWN_WRITES: Readonly<Record<string, (services: Services) => WriteOperations>> = {
  integration: integrationWrites,
  source_code: sourceCodeWrites,
  source_code_version: sourceCodeVersionWrites,
  team: (services) => teamWrites(services, targetOf(teamEntity, teamAggregate)),
  webhook: webhookWrites,
  resource: resourceWrites,
};

/** The writes of every declared kind, by kind. */
export function catalogEntityWrites(services: Services): Readonly<Record<DeclaredKind, WriteOperations>> {
  return Object.fromEntries(
    DECLARED_ENTITIES.map((entity) => [entity.kind, OWN_WRITES[entity.kind]?.(services) ?? declaredWrites(services, entity)]),
  ) as Record<DeclaredKind, WriteOperations>;
}
