import type { FastifyInstance } from 'fastify';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { entityInput } from '../../edge/entity-input.js';
import type { SourceCodeFields } from '../../events/source-code.js';
import { sourceCodeEntity } from '../../model/source-code.js';
import { sourceCodeListSpec } from '../../read/list-specs/source-codes.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';
import { withIntegrationKinds } from './integration-kind.js';

/**
 * REST for source codes (docs/contract.md §2–§3): `/api/source_codes`, with the declared
 * integration-kind rule. The identifier is the URL (one sent is checked against it by the write model).
 */
export function sourceCodesRoutes(app: FastifyInstance, services: Services): void {
  const input = withIntegrationKinds(services, sourceCodeEntity, entityInput(sourceCodeEntity));
  catalogRoutes(app, services, {
    ...declaredSurface(sourceCodeEntity, sourceCodeAggregate, sourceCodeListSpec),
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
