import type { FastifyInstance } from 'fastify';
import { workspaceAggregate } from '../../commands/workspace.js';
import { entityInput } from '../../edge/entity-input.js';
import type { WorkspaceFields } from '../../events/workspace.js';
import { workspaceEntity } from '../../model/workspace.js';
import { workspaceListSpec } from '../../read/list-specs/workspaces.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { requireIntegrationKind } from './integration-kind.js';

const input = entityInput(workspaceEntity);

/** A workspace lives on a git server: its integration is a git integration of the same provider. */
const gitIntegration = (services: Services, provider: WorkspaceFields['workspaceProvider'], integrationId: string | undefined) =>
  requireIntegrationKind(services, integrationId, { type: 'git', provider, users: `${provider} workspaces` });

/** REST for workspaces (docs/contract.md §2–§3): the catalog kit plus the integration-kind rule. */
export function workspacesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    ...declaredSurface(workspaceEntity, workspaceAggregate, workspaceListSpec),
    async parseCreate(body) {
      const data = input.parseCreate(body);
      await gitIntegration(services, data.workspaceProvider, data.integrationId);
      return data;
    },
    async parsePatch(body, current: WorkspaceFields) {
      const changes = input.parsePatch(body, current);
      if (changes.integrationId !== current.integrationId) await gitIntegration(services, current.workspaceProvider, changes.integrationId);
      return changes;
    },
  });
}
