import type { FastifyInstance } from 'fastify';
import { sourceCodeVersionAggregate } from '../../commands/source-code-version.js';
import { entityInput } from '../../edge/entity-input.js';
import type { SourceCodeVersionFields } from '../../events/source-code-version.js';
import { sourceCodeVersionEntity, sourceCodeVersionIdentifier } from '../../model/source-code-version.js';
import { sourceCodeVersionListSpec } from '../../read/list-specs/source-code-versions.js';
import type { Services } from '../../services.js';
import { catalogRoutes, declaredSurface } from './catalog.js';

const input = entityInput(sourceCodeVersionEntity);

/**
 * REST for source code versions (docs/contract.md §2–§3): `/api/source_code_versions`. The identifier
 * is derived from the folder and the tag or branch (re-derived when one of them changes); one sent
 * is checked against it by the write model.
 */
export function sourceCodeVersionsRoutes(app: FastifyInstance, services: Services): void {
  catalogRoutes(app, services, {
    ...declaredSurface(sourceCodeVersionEntity, sourceCodeVersionAggregate, sourceCodeVersionListSpec),
    parseCreate(body) {
      const data = input.parseCreate(body);
      return { ...data, identifier: (data.identifier) ?? sourceCodeVersionIdentifier(data) };
    },
    parsePatch(body, current: SourceCodeVersionFields) {
      const changes = input.parsePatch(body, current);
      const moved = changes.sourceCodeFolder !== undefined || changes.sourceCodeVersion !== undefined || changes.sourceCodeBranch !== undefined;
      const derived = changes.identifier ?? (moved ? sourceCodeVersionIdentifier({ ...current, ...changes }) : undefined);
      return derived === undefined ? changes : { ...changes, identifier: derived };
    },
  });
}
