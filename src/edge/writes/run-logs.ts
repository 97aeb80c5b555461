import { z } from 'zod';
import { loadAggregate } from '../../commands/handler.js';
import { integrationAggregate } from '../../commands/integration.js';
import { resourceAggregate } from '../../commands/resource.js';
import { secretAggregate } from '../../commands/secret.js';
import { AppError, notFound } from '../../errors.js';
import { secretValuesAt } from '../../events/secret-fields.js';
import { secretPathsOf } from '../../model/entity.js';
import { integrationEntity } from '../../model/integration.js';
import { allows } from '../../model/permissions.js';
import { resourceEntity } from '../../model/resource.js';
import { isOpenRun, maskedForms, maskSecrets } from '../../model/run.js';
import { secretEntity } from '../../model/secret.js';
import { appendRunLog, type Appended } from '../../read/run-logs.js';
import { findRun } from '../../read/runs.js';
import type { Services } from '../../services.js';
import { canonicalUuid, parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { commandDeps, type WriteCall } from './write.js';

/** The largest chunk one append takes, in bytes of UTF-8 (a runner sends its output in pieces). */
export const MAX_CHUNK_BYTES = 512 * 1024;

/** The body of an append: `{content}`, the text to add (lines end with `\n`; nothing is added). */
export const appendRunLogBody = z.strictObject({
  content: z
    .string()
    .min(1, 'must not be empty')
    .refine((content) => Buffer.byteLength(content, 'utf8') <= MAX_CHUNK_BYTES, `at most ${MAX_CHUNK_BYTES} bytes per append`),
});

/** What an append answers. */
export interface RunLogAppendView extends Appended {
  readonly runId: string;
}

/** The projection that shows runs. */
export const RUNS_PROJECTION = 'runs';

/**
 * The stored secret values a resource's runs may print (docs/contract.md §2, "Runs"): its sensitive
 * variables, and the write-only values of the secrets and integrations it names, read decrypted from
 * their streams on every append (a rotated secret is masked from its next append on).
 */
async function secretsOfResource(services: Services, resourceId: string): Promise<unknown[]> {
  const deps = commandDeps(services);
  const resource = (await loadAggregate(deps, resourceAggregate, resourceId)).state;
  if (resource.status === 'absent') return [];
  const { fields } = resource;
  const values = secretValuesAt(fields, secretPathsOf(resourceEntity), { when: resourceEntity.secrets.when });
  const [secrets, integrations] = await Promise.all([
    Promise.all(fields.secretIds.map((id) => loadAggregate(deps, secretAggregate, id))),
    Promise.all(fields.integrationIds.map((id) => loadAggregate(deps, integrationAggregate, id))),
  ]);
  for (const { state } of secrets) if (state.status !== 'absent') values.push(...secretValuesAt(state.fields, secretPathsOf(secretEntity)));
  for (const { state } of integrations)
    if (state.status !== 'absent') values.push(...secretValuesAt(state.fields, secretPathsOf(integrationEntity)));
  return values;
}

/**
 * Appends a chunk to a run's log, for REST (`POST /api/resources/{id}/runs/{runId}/logs`) and the
 * GraphQL mutation `appendRunLog` alike: runners only (service accounts with `resource:write`, or
 * `resource:admin`), while the run is queued or in progress; secrets masked before anything is
 * stored; bounded per run by RUN_LOG_MAX_BYTES.
 */
export async function appendToRunLog(
  services: Services,
  call: WriteCall,
  resourceIdInput: unknown,
  runIdInput: unknown,
  body: unknown,
): Promise<RunLogAppendView> {
  const principal = authorize(call.request, 'resource:write');
  if (principal.kind !== 'service_account' && !allows(principal.permissions, 'resource:admin')) {
    throw new AppError('FORBIDDEN', "only runner service accounts or administrators may append to a run's log", {
      details: { missingPermission: 'resource:admin' },
    });
  }
  const { resourceId, runId } = parseInput(
    z.object({ resourceId: canonicalUuid, runId: canonicalUuid }),
    { resourceId: resourceIdInput, runId: runIdInput },
    'path',
  );
  const { content } = parseInput(appendRunLogBody, body ?? {}, 'body');
  let run = await findRun(services.db, runId);
  if (!run) {
    // Queued a moment ago: the runs projection may not show it yet.
    const head = await services.store.lastPosition();
    if (head !== undefined) await services.waitFor([RUNS_PROJECTION], head);
    run = await findRun(services.db, runId);
  }
  if (run?.resourceId !== resourceId) throw notFound('run not found');
  if (!isOpenRun(run.status)) {
    throw new AppError('RUN_ENDED', `run ${runId} has ended (${run.status}): its log takes no more output`, {
      details: { runStatus: run.status },
    });
  }
  const masked = maskSecrets(content, maskedForms(await secretsOfResource(services, resourceId)));
  const appended = await appendRunLog(
    services.pool,
    { runId, resourceId, content: masked, at: services.now() },
    services.config.RUN_LOG_MAX_BYTES,
  );
  services.runLogs.appended(runId);
  return { runId, ...appended };
}
