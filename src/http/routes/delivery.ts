import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { readDelivery } from '../../delivery/cursors.js';
import { authorize } from '../../edge/authorize.js';
import { notFound } from '../../errors.js';
import type { Permission } from '../../model/permissions.js';
import type { Services } from '../../services.js';
import { dynamicDb } from '../../storage/dynamic.js';
import { canonicalUuid, parseInput } from '../../validation.js';

const idParams = z.object({ id: canonicalUuid });

/**
 * `GET /{plural}/:id/delivery`: how a delivery target's cursor stands (src/delivery/cursors.ts), for
 * webhooks and notification integrations alike. Not an entity's field, so a route of its own; a
 * target that does not exist (or is not of the kind, `where`) answers 404.
 */
export function deliveryRoute(
  app: FastifyInstance,
  services: Services,
  target: {
    plural: 'webhooks' | 'integrations';
    permission: Permission;
    label: string;
    where?: { column: 'integration_type'; value: string };
  },
): void {
  app.get(`/${target.plural}/:id/delivery`, async (request) => {
    authorize(request, target.permission);
    const { id } = parseInput(idParams, request.params, 'path');
    let query = dynamicDb(services.db).selectFrom(target.plural).select('id').where('id', '=', id).where('deleted_at', 'is', null);
    if (target.where) query = query.where(target.where.column, '=', target.where.value);
    if (!(await query.executeTakeFirst())) throw notFound(`${target.label} not found`);
    return readDelivery(services.pool, id);
  });
}
