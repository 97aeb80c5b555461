import { executorAggregate } from '../../commands/executor.js';
import { integrationAggregate } from '../../commands/integration.js';
import { secretAggregate } from '../../commands/secret.js';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { storageAggregate } from '../../commands/storage.js';
import { templateAggregate } from '../../commands/template.js';
import { workspaceAggregate } from '../../commands/workspace.js';
import { teamAggregate } from '../../commands/team.js';
import type { IntegrationFields } from '../../events/integration.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import type { SourceCodeVersionFields } from '../../events/source-code-version.js';
import { executorEntity } from '../../model/executor.js';
import { integrationEntity } from '../../model/integration.js';
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

/** The writes of the declared kinds besides resources (./resources.ts), by kind. */
export function catalogEntityWrites(services: Services) {
  const deps = commandDeps(services);
  return {
    template: catalogWrites(services, targetOf(templateEntity, templateAggregate), entityInput(templateEntity)),
    integration: integrationWrites(services),
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
    team: teamWrites(services, targetOf(teamEntity, teamAggregate)),
    webhook: webhookWrites(services),
  } satisfies Record<string, WriteOperations>;
}
