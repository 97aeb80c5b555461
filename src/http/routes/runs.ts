import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { authorize } from '../../edge/authorize.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { appendToRunLog, RUNS_PROJECTION } from '../../edge/writes/run-logs.js';
import { contentRange, parseListQuery } from '../../read/list-query.js';
import { runListSpec } from '../../read/list-specs/runs.js';
import { LOG_PAGE_BYTES, LOG_PAGE_CHUNKS, readRunLog } from '../../read/run-logs.js';
import { findRun, listRuns, type RunView } from '../../read/runs.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { restCall } from './catalog.js';

const resourceParams = z.object({ id: canonicalUuid });
const runParams = z.object({ id: canonicalUuid, runId: canonicalUuid });

/** `?after=<seq>&limit=<n>` of a log read. */
export const logPageQuery = z.strictObject({
  after: z.coerce.number({ message: 'must be a whole number' }).int('must be a whole number').min(0, 'must not be negative').default(0),
  limit: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(LOG_PAGE_CHUNKS, `at most ${LOG_PAGE_CHUNKS}`)
    .default(LOG_PAGE_CHUNKS),
});

/**
 * Runs of a resource (docs/contract.md §2, "Runs"): the list and one run behind `resource:read`;
 * their logs, read in pages after a sequence number; and the runner's append.
 */
export function runRoutes(app: FastifyInstance, services: Services): void {
  const limits = { maxPageSize: services.config.MAX_PAGE_SIZE, defaultPageSize: 100 };

  /** The run, when it belongs to the resource. */
  const runOf = async (id: string, runId: string): Promise<RunView> => {
    const run = await findRun(services.db, runId);
    if (run?.resourceId !== id) throw notFound('run not found');
    return run;
  };

  app.get('/resources/:id/runs', async (request, reply) => {
    authorize(request, 'resource:read');
    const { id } = parseInput(resourceParams, request.params, 'path');
    const query = parseListQuery(runListSpec, request.query as Record<string, unknown>, limits);
    await awaitMinPosition(request, services, [RUNS_PROJECTION]);
    const { rows, total } = await listRuns(services.db, id, query);
    return reply.header('Content-Range', contentRange(runListSpec, query, rows.length, total)).send(rows);
  });

  app.get('/resources/:id/runs/:runId', async (request) => {
    authorize(request, 'resource:read');
    const { id, runId } = parseInput(runParams, request.params, 'path');
    await awaitMinPosition(request, services, [RUNS_PROJECTION]);
    return runOf(id, runId);
  });

  app.get('/resources/:id/runs/:runId/logs', async (request) => {
    authorize(request, 'resource:read');
    const { id, runId } = parseInput(runParams, request.params, 'path');
    const { after, limit } = parseInput(logPageQuery, request.query, 'query');
    await awaitMinPosition(request, services, [RUNS_PROJECTION]);
    const run = await runOf(id, runId);
    const page = await readRunLog(services.pool, runId, after, limit, LOG_PAGE_BYTES);
    return { runId, status: run.status, ...page };
  });

  app.post('/resources/:id/runs/:runId/logs', async (request) => {
    const { id, runId } = request.params as { id?: unknown; runId?: unknown };
    return appendToRunLog(services, restCall(request), id, runId, request.body);
  });
}
