import { z } from 'zod';
import { AppError, notFound } from '../errors.js';
import { appendToRunLog } from '../edge/writes/run-logs.js';
import { allows } from '../model/permissions.js';
import type { Principal } from '../model/principal.js';
import type { RunLogTail } from '../read/run-log-feed.js';
import { doc, member } from './sdl-doc.js';
import { LOG_PAGE_BYTES, LOG_PAGE_CHUNKS, readRunLog } from '../read/run-logs.js';
import { findRun } from '../read/runs.js';
import type { Services } from '../services.js';
import { canonicalUuid, parseInput } from '../validation.js';
import type { GraphContext } from './context.js';

/**
 * Run logs over GraphQL (docs/contract.md §2, "Runs"): `runLog(runId, after, limit)` reads a page,
 * `appendRunLog` is the runner's append (the same operation as REST's), and the `runLog`
 * subscription tails a run live (wired in ./subscriptions.ts, on the graphql-ws transport and
 * limits of `changes`). The runs themselves are the `run` and `runs` root fields (./model.ts).
 */

/** Types and root fields of run logs (the subscription field is in SUBSCRIPTION_SDL). */
export const RUN_LOG_SDL = `${doc("A piece of a run's log, as the runner appended it (secrets masked as `********`).")}type RunLogChunk {
${doc('The run it belongs to.', '  ')}  runId: UUID!
${doc("Its place in the run's log: 1, 2, …; pass the last one received as `after` to resume.", '  ')}  seq: Int!
${doc('The text (lines end with a newline where the runner sent one).', '  ')}  content: String!
${doc('When it was appended.', '  ')}  at: DateTime!
}
${doc("A page of a run's log.")}type RunLogPage {
${doc('The run.', '  ')}  runId: UUID!
${doc("The run's status: the log is complete once it is `succeeded`, `failed` or `cancelled`.", '  ')}  status: String!
${doc('The chunks after `after`, in order.', '  ')}  chunks: [RunLogChunk!]!
${doc('Bytes of the whole log stored so far (RUN_LOG_MAX_BYTES at most).', '  ')}  bytes: Float!
${doc('Whether the log reached its bound: later output was dropped.', '  ')}  truncated: Boolean!
}
${doc('What an append stored.')}type RunLogAppended {
${doc('The run.', '  ')}  runId: UUID!
${doc("The chunk's sequence number; null when nothing was stored (the log was full).", '  ')}  seq: Int
${doc('Bytes of this chunk stored (fewer than sent when the bound cut it).', '  ')}  acceptedBytes: Int!
${doc("Bytes of the run's log now stored.", '  ')}  bytes: Float!
${doc('Whether the log reached its bound.', '  ')}  truncated: Boolean!
}
extend type Query {
${member(
  `A page of a run's log (\`resource:read\`): the chunks after \`after\` (default 0, the start), at most \`limit\` (default and most ` +
    `${LOG_PAGE_CHUNKS}) and about ${LOG_PAGE_BYTES} bytes; null when the run does not exist.`,
  'runLog(runId: UUID!, after: Int, limit: Int): RunLogPage',
)}}
extend type Mutation {
${member(
  "Appends to a run's log, as `POST /api/resources/{id}/runs/{runId}/logs`: runner service accounts (or `resource:admin`), while the " +
    "run is queued or in progress; secrets of the resource's variables, secrets and integrations are masked; at most " +
    'RUN_LOG_MAX_BYTES per run, then truncated with a marker.',
  'appendRunLog(resourceId: UUID!, runId: UUID!, content: String!): RunLogAppended!',
)}}
`;

const pageArgs = z.object({
  runId: canonicalUuid,
  after: z.number().int('must be a whole number').min(0, 'must not be negative').nullish(),
  limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(LOG_PAGE_CHUNKS, `at most ${LOG_PAGE_CHUNKS}`).nullish(),
});

function requireRunReader(principal: Principal | undefined): Principal {
  if (!principal) throw new AppError('UNAUTHENTICATED', 'Not authenticated.');
  if (!allows(principal.permissions, 'resource:read'))
    throw new AppError('FORBIDDEN', 'missing permission resource:read', { details: { missingPermission: 'resource:read' } });
  return principal;
}

/** Query.runLog and Mutation.appendRunLog. */
export const runLogResolvers = {
  Query: {
    runLog: async (_root: unknown, args: Record<string, unknown>, context: GraphContext) => {
      requireRunReader(context.principal);
      const { runId, after, limit } = parseInput(pageArgs, args, 'arguments');
      const run = await findRun(context.services.db, runId);
      if (!run) return null;
      const page = await readRunLog(context.services.pool, runId, after ?? 0, limit ?? LOG_PAGE_CHUNKS, LOG_PAGE_BYTES);
      return { runId, status: run.status, ...page };
    },
  },
  Mutation: {
    appendRunLog: (_root: unknown, args: Record<string, unknown>, context: GraphContext) =>
      appendToRunLog(context.services, { request: context.request }, args.resourceId, args.runId, { content: args.content }),
  },
};

const tailArgs = z.object({
  runId: canonicalUuid,
  after: z.number().int('must be a whole number').min(0, 'must not be negative').nullish(),
});

/** Opens the live tail of `subscription { runLog(runId, after) }` for a signed-in caller with `resource:read`. */
export async function openRunLogTail(services: Services, principal: Principal, args: Record<string, unknown>): Promise<RunLogTail> {
  requireRunReader(principal);
  const { runId, after } = parseInput(tailArgs, args, 'arguments');
  if (!(await findRun(services.db, runId))) throw notFound('run not found');
  return services.runLogs.tail(runId, after ?? 0, async () => (await findRun(services.db, runId))?.status);
}
