import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadAggregate, type CommandDeps } from '../../commands/handler.js';
import { integrationAggregate } from '../../commands/integration.js';
import { sourceCodeAggregate } from '../../commands/source-code.js';
import { sourceCodeListSpec } from '../../read/list-specs/source-codes.js';
import { catalogReader } from '../../read/catalog.js';
import { AppError } from '../../errors.js';
import { SOURCE_CODE_LANGUAGES, SOURCE_CODE_PROVIDERS, type SourceCodeFields, type SourceCodeProvider } from '../../events/source-code.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { catalogRoutes, uuidParam } from './catalog.js';
import { descriptionField, gitRefName, labelsField } from './fields.js';

// What `git clone` accepts: scheme://[user@]host[:port]/path, or scp-like user@host:path; the path
// must name something (not only slashes), a trailing slash or .git is fine.
const URL_FORM = /^(?:https?|ssh|git|git\+ssh):\/\/(?:[^\s@/]+@)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?\/(?=[^\s?#]*[^\s?#/])[^\s?#]*$/i;
const SCP_FORM = /^[A-Za-z0-9._-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?:(?!\/\/)(?=[^\s?#]*[^\s?#/])[^\s?#]*$/;

const sourceCodeUrl = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(2000, 'at most 2000 characters')
  .refine((url) => URL_FORM.test(url) || SCP_FORM.test(url), 'must be an http(s), ssh or git URL of a repository, or user@host:path');

const refList = z.array(gitRefName).max(1000, 'at most 1000 entries');

/** POST /api/source_codes body. */
export const createBody = z.strictObject({
  sourceCodeUrl,
  // Derived from sourceCodeUrl; accepted only to be checked against it (the decider answers 422).
  identifier: z.string().optional(),
  sourceCodeProvider: z.enum(SOURCE_CODE_PROVIDERS),
  sourceCodeLanguage: z.enum(SOURCE_CODE_LANGUAGES).default('opentofu'),
  gitTags: refList.default([]),
  gitBranches: refList.default([]),
  integrationId: uuidParam.nullable().default(null),
  description: descriptionField.default(''),
  labels: labelsField.default([]),
  status: z.enum(['enabled', 'disabled']).default('enabled'),
});

/** PATCH /api/source_codes/{id} body. */
export const patchBody = z
  .strictObject({
    sourceCodeUrl,
    identifier: z.string(),
    // Immutable: sent only to be told so (the decider answers 422 when it differs).
    sourceCodeProvider: z.enum(SOURCE_CODE_PROVIDERS),
    sourceCodeLanguage: z.enum(SOURCE_CODE_LANGUAGES),
    gitTags: refList,
    gitBranches: refList,
    integrationId: uuidParam.nullable(),
    description: descriptionField,
    labels: labelsField,
  })
  .partial();

/**
 * The integration must be a git integration for the source code's provider. A missing or disabled
 * one is left to the command handler, so every relation reports those in the same words; a
 * `git_public` source code with an integration is refused by the decider.
 */
async function checkIntegration(deps: CommandDeps, provider: SourceCodeProvider, integrationId: string | null | undefined): Promise<void> {
  if (integrationId === null || integrationId === undefined || provider === 'git_public') return;
  const { state } = await loadAggregate(deps, integrationAggregate, integrationId);
  if (state.status !== 'active') return;
  const { integrationType, integrationProvider } = state.fields;
  if (integrationType === 'git' && integrationProvider === provider) return;
  const message = `integration ${integrationId} is a ${integrationType} integration for ${integrationProvider}, not a git integration for ${provider}`;
  throw new AppError('UNPROCESSABLE', 'invalid references: integrationId', { errors: [{ field: 'integrationId', message }] });
}

async function parseCreate(deps: CommandDeps, body: unknown): Promise<SourceCodeFields & { status: 'enabled' | 'disabled' }> {
  const { identifier, ...data } = parseInput(createBody, body, 'body');
  await checkIntegration(deps, data.sourceCodeProvider, data.integrationId);
  return { ...data, identifier: identifier ?? data.sourceCodeUrl };
}

async function parsePatch(deps: CommandDeps, body: unknown, current: SourceCodeFields): Promise<Partial<SourceCodeFields>> {
  const { identifier, ...changes } = parseInput(patchBody, body, 'body');
  // The provider is immutable (and so is the integration's), so a match checked now stays true.
  await checkIntegration(deps, current.sourceCodeProvider, changes.integrationId);
  const derived = identifier ?? changes.sourceCodeUrl;
  return derived === undefined ? changes : { ...changes, identifier: derived };
}

/** REST for source codes (docs/contract.md §2–§3): `/api/source_codes`. */
export function sourceCodesRoutes(app: FastifyInstance, services: Services): void {
  const deps: CommandDeps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  catalogRoutes(app, services, {
    plural: 'source_codes',
    resource: 'source_code',
    projection: 'source_codes',
    aggregate: sourceCodeAggregate,
    listSpec: sourceCodeListSpec,
    reader: catalogReader('source_codes'),
    parseCreate: (body) => parseCreate(deps, body),
    parsePatch: (body, current) => parsePatch(deps, body, current),
  });
}
