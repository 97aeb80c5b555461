import type { FastifyInstance } from 'fastify';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { entityInput } from '../../edge/entity-input.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import { sourceCodeEntity, type SourceCodeProvider } from '../../model/source-code.js';
import { sourceCodeListSpec } from '../../read/list-specs/source-codes.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { requireIntegrationKind } from './integration-kind.js';

const input = entityInput(sourceCodeEntity);

/** A private repository is reached through a git integration of its provider (`git_public` takes none: the write model says so). */
const gitIntegration = (services: Services, provider: SourceCodeProvider, integrationId: string | null | undefined) =>
  provider === 'git_public' ? Promise.resolve() : requireIntegrationKind(services, integrationId, { type: 'git', provider, users: `${provider} source codes` });

/**
 * REST for source codes (docs/contract.md §2–§3): `/api/source_codes`. The identifier is the URL (one
 * sent is checked against it by the write model).
 */
export function sourceCodesRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    ...declaredSurface(sourceCodeEntity, sourceCodeAggregate, sourceCodeListSpec),
    async parseCreate(body) {
      const data = input.parseCreate(body);
      await gitIntegration(services, data.sourceCodeProvider, data.integrationId);
      return { ...data, identifier: (data.identifier) ?? data.sourceCodeUrl };
    },
    async parsePatch(body, current: SourceCodeFields) {
      const changes = input.parsePatch(body, current);
      // The provider is immutable (and so is the integration's), so a match checked now stays true.
      await gitIntegration(services, current.sourceCodeProvider, changes.integrationId);
      const derived = changes.identifier ?? changes.sourceCodeUrl;
      return derived === undefined ? changes : { ...changes, identifier: derived };
    },
  });
}
