import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { AppError, notFound } from '../../errors.js';
import { readableRows } from '../../read/entity-access.js';
import { parentOutputs, startingVariables } from '../../read/version-variables.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';

/** Parents one variables request may name. */
const MAX_PARENTS = 20;

/**
 * `parent_resources`: resource ids separated by commas (the upstream's spelling), also repeated;
 * its `"[]"` for none is taken as none.
 */
const parentsQuery = z.object({
  parent_resources: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) =>
      (Array.isArray(value) ? value : [value ?? ''])
        .flatMap((part) => part.split(','))
        .map((part) => part.trim())
        .filter((part) => part !== '' && part !== '[]' && part !== '"[]"'),
    )
    .pipe(z.array(canonicalUuid).max(MAX_PARENTS, `at most ${MAX_PARENTS} parent resources`)),
});

/**
 * What source code versions add to their declared REST surface: `GET …/{id}/variables?parent_resources=`
 * answers the version's variables as a request form starts from them (src/read/version-variables.ts).
 */
export function versionVariablesRoutes(app: FastifyInstance, services: Services): void {
  app.get('/source_code_versions/:id/variables', async (request) => {
    const principal = authorize(request, 'source_code_version:read');
    const { id } = parseInput(z.object({ id: canonicalUuid }), request.params, 'path');
    const { parent_resources: parentIds } = parseInput(parentsQuery, request.query, 'query');
    await awaitMinPosition(request, services, ['source_code_versions', 'resources']);
    const version = await services.db
      .selectFrom('source_code_versions')
      .select('variables')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!version) throw notFound('source code version not found');
    const found = parentIds.length === 0 ? [] : await parentOutputs(services.db, parentIds, readableRows(principal, 'resource', 'r'));
    // A parent the caller may not read is as absent as one that does not exist.
    const missing = parentIds.filter((parentId) => !found.some((row) => row.id === parentId));
    if (missing.length > 0) {
      throw new AppError('INVALID_REFERENCE', `no resource ${missing.join(', ')}`, {
        errors: missing.map((parentId) => ({ field: 'parent_resources', message: `no resource ${parentId}` })),
      });
    }
    const inOrder = parentIds.flatMap((parentId) => found.filter((row) => row.id === parentId));
    return startingVariables(version.variables, inOrder);
  });
}
