import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { executorAggregate } from '../../commands/executor.js';
import { executorListSpec } from '../../read/list-specs/executors.js';
import { catalogReader } from '../../read/catalog.js';
import { EXECUTOR_RUNTIMES, type ExecutorFields } from '../../events/executor.js';
import { executorLinks } from '../../projections/executors.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { uuidParam } from './catalog.js';
import { lifecycleRoutes } from './lifecycle.js';
import { descriptionField, gitRefName, labelsField, repositoryFolder } from './fields.js';


const idList = z
  .array(uuidParam)
  .max(100, 'at most 100 ids')
  .superRefine((ids, ctx) => {
    ids.forEach((id, index) => {
      if (ids.indexOf(id) < index) ctx.addIssue({ code: 'custom', path: [index], message: `repeats ${id}` });
    });
  });

const fields = {
  name: z.string().trim().min(1, 'must not be empty').max(200, 'at most 200 characters'),
  runtime: z.enum(EXECUTOR_RUNTIMES, { message: `must be one of ${EXECUTOR_RUNTIMES.join(', ')}` }),
  commandArgs: z.string().max(10_000, 'at most 10000 characters'),
  sourceCodeVersion: gitRefName.nullable(),
  sourceCodeBranch: gitRefName.nullable(),
  sourceCodeFolder: repositoryFolder,
  storagePath: z.string().trim().max(1000, 'at most 1000 characters'),
  sourceCodeId: uuidParam,
  storageId: uuidParam.nullable(),
  integrationIds: idList,
  secretIds: idList,
  description: descriptionField,
  labels: labelsField,
};

/** POST /api/executors body; the tag-xor-branch rule is the decider's (422 naming both fields). */
export const createBody = z.strictObject({
  ...fields,
  runtime: fields.runtime.default('tofu'),
  commandArgs: fields.commandArgs.default(''),
  sourceCodeVersion: fields.sourceCodeVersion.default(null),
  sourceCodeBranch: fields.sourceCodeBranch.default(null),
  sourceCodeFolder: fields.sourceCodeFolder.default('.'),
  storagePath: fields.storagePath.default(''),
  storageId: fields.storageId.default(null),
  integrationIds: fields.integrationIds.default([]),
  secretIds: fields.secretIds.default([]),
  description: fields.description.default(''),
  labels: fields.labels.default([]),
});

/** PATCH body: any subset; `null` clears the tag, branch or storage. */
export const patchBody = z.strictObject(fields).partial();

/** REST for executors (docs/contract.md §2–§3): `/api/executors`, lifecycle actions without approvals. */
export function executorsRoutes(app: FastifyInstance, services: Services): void {
  lifecycleRoutes<ExecutorFields>(app, services, {
    plural: 'executors',
    resource: 'executor',
    projection: 'executors',
    aggregate: executorAggregate,
    listSpec: executorListSpec,
    reader: catalogReader('executors', executorLinks),
    parseCreate: (body) => parseInput(createBody, body, 'body'),
    parsePatch: (body) => parseInput(patchBody, body, 'body'),
  });
}
