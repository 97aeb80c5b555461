import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkFilterByDomain, checkProviderConfiguration, invalid } from '../../commands/auth-provider-config.js';
import { leavesSuperSignIn } from '../../auth/super-sign-in.js';
import {
  authProviderAggregate,
  type AuthProviderCommand,
  type AuthProviderFields,
  type AuthProviderState,
} from '../../commands/auth-provider.js';
import { executeCommand, loadAggregate } from '../../commands/handler.js';
import { applyFilters, applyPage, contentRange, parseListQuery } from '../../read/list-query.js';
import { authProviderListSpec } from '../../read/list-specs/auth-providers.js';
import {
  authProviderViewColumns,
  findAuthProvider,
  listLoginOptions,
  toAuthProviderView,
  type AuthProviderView,
} from '../../read/auth-providers.js';
import { AppError, notFound, unprocessable, type FieldIssue } from '../../errors.js';
import { AUTH_PROVIDER_TYPES, type AuthProviderType } from '../../events/auth-provider.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { awaitMinPosition, parseIfMatch } from '../../edge/headers.js';
import { parseInput, zodIssues, canonicalUuid as uuid } from '../../validation.js';

const PROJECTIONS = ['auth_providers'] as const;
const ADMIN = 'auth_provider:admin';

/** What the log says each time a request leaves a guest provider enabled (docs/contract.md §5: the log warns). */
export const GUEST_WARNING = 'guest provider enabled: insecure, for development only';

const idParams = z.object({ id: uuid });
const actionParams = z.object({ id: uuid, action: z.enum(['enable', 'disable'], { message: 'unknown action; allowed: enable, disable' }) });
const orRequired = (message: string) => (issue: { readonly input: unknown }) => (issue.input === undefined ? 'required' : message);

const fields = {
  name: z
    .string({ error: orRequired('must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'at most 200 characters'),
  key: z
    .string({ error: 'must be a string' })
    .regex(/^[a-z0-9_-]+$/, 'must match [a-z0-9_-]+')
    .max(100, 'at most 100 characters'),
  type: z.enum(AUTH_PROVIDER_TYPES, { error: orRequired(`must be one of ${AUTH_PROVIDER_TYPES.join(', ')}`) }),
  description: z.string({ error: 'must be a string' }).max(10_000, 'at most 10000 characters'),
  // Both are checked against the provider's type once it is known (checkTyped).
  configuration: z.record(z.string(), z.unknown(), { error: orRequired('must be a JSON object') }),
  filterByDomain: z.unknown(),
};

/** POST /api/auth_providers body, before the type-specific checks. Unknown fields are refused. */
export const createAuthProviderBody = z.strictObject({
  ...fields,
  key: fields.key.optional(),
  description: fields.description.default(''),
  enabled: z.boolean({ error: 'must be true or false' }).default(true),
  filterByDomain: fields.filterByDomain.optional(),
});

/** PATCH /api/auth_providers/{id} body: any subset; `type` and `key` are accepted only to say they are immutable. */
export const patchAuthProviderBody = z.strictObject(fields).partial();

type Changes = Extract<AuthProviderCommand, { type: 'UpdateAuthProvider' }>['data']['changes'];
type Active = Extract<AuthProviderState, { status: 'active' }>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The type-specific checks, merged with the body's own issues so one 400 lists every invalid field. */
function checkTyped(
  type: AuthProviderType,
  raw: Record<string, unknown>,
  bodyIssues: readonly FieldIssue[],
  previous?: Readonly<Record<string, unknown>>,
) {
  const configuration = 'configuration' in raw ? checkProviderConfiguration(type, raw.configuration, previous) : undefined;
  const domains = 'filterByDomain' in raw ? checkFilterByDomain(type, raw.filterByDomain) : undefined;
  const reported = new Set(bodyIssues.map((e) => e.field));
  const typed = [configuration, domains].flatMap((c) => (c && !c.ok ? c.errors : [])).filter((e) => !reported.has(e.field));
  if (bodyIssues.length + typed.length > 0) throw invalid([...bodyIssues, ...typed]);
  return { configuration: configuration?.ok ? configuration.value : undefined, filterByDomain: domains?.ok ? domains.value : undefined };
}

function parseCreate(input: unknown): AuthProviderFields & { readonly enabled: boolean } {
  const raw = isRecord(input) ? input : {};
  const body = createAuthProviderBody.safeParse(input);
  const issues = body.success ? [] : zodIssues(body.error);
  const type = fields.type.safeParse(raw.type);
  // Without a valid type there is nothing to check the configuration against; the body's issues say so.
  if (!type.success) throw invalid(issues);
  const typed = checkTyped(type.data, raw, issues);
  if (!body.success) throw invalid(issues);
  const { key, name, description, enabled } = body.data;
  return {
    key: key ?? type.data,
    name,
    type: type.data,
    description,
    enabled,
    configuration: typed.configuration ?? {},
    filterByDomain: typed.filterByDomain ?? [],
  };
}

function parsePatch(input: unknown, state: Active): Changes {
  const body = patchAuthProviderBody.safeParse(input);
  const issues = body.success ? [] : zodIssues(body.error);
  const typed = checkTyped(state.fields.type, isRecord(input) ? input : {}, issues, state.fields.configuration);
  if (!body.success) throw invalid(issues);
  const { type, key, name, description } = body.data;
  // The decider words the type refusal; ask it rather than repeat it.
  if (type !== undefined) authProviderAggregate.decide({ type: 'UpdateAuthProvider', data: { changes: { type } } }, state);
  if (key !== undefined && key !== state.fields.key) {
    // users.provider holds the key, and the callback URL registered at the identity provider contains it.
    const message = `key is immutable (it is "${state.fields.key}"): its users and its callback URL depend on it; create another provider instead`;
    throw unprocessable(message, [{ field: 'key', message }]);
  }
  // Absent fields stay out of the command: only what the client sent is a change.
  return {
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
    ...(typed.configuration !== undefined && { configuration: typed.configuration }),
    ...(typed.filterByDomain !== undefined && { filterByDomain: typed.filterByDomain }),
  };
}

/** `/auth_providers` (administrators only) and the public `/auth/providers`, under `/api`. */
export function authProviderRoutes(app: FastifyInstance, services: Services): void {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };
  const baseUrl = services.config.BASE_URL;

  /** Runs a command, waits until the read model shows it, and answers with the projected provider. */
  async function run(request: FastifyRequest, id: string, command: AuthProviderCommand, expectedRevision?: bigint) {
    const result = await executeCommand(deps, authProviderAggregate, id, command, {
      ...commandContext(request, services.now()),
      expectedRevision,
    });
    if (result.position !== undefined) await services.waitFor(PROJECTIONS, result.position);
    return { view: await findAuthProvider(services.db, id, baseUrl), position: result.position };
  }

  const send = (reply: FastifyReply, view: AuthProviderView | undefined, position: bigint | undefined, status = 200): FastifyReply => {
    if (!view) throw notFound('auth provider not found');
    if (position !== undefined) void reply.header('X-Position', String(position));
    return reply.status(status).header('ETag', `"${view.revision}"`).send(view);
  };

  const warnIfGuest = (request: FastifyRequest, view: AuthProviderView | undefined): void => {
    if (view?.type === 'guest' && view.enabled)
      request.log.warn({ providerId: view.id, key: view.key, role: view.configuration.role }, GUEST_WARNING);
  };

  app.get('/auth_providers', async (request, reply) => {
    authorize(request, ADMIN);
    const query = parseListQuery(authProviderListSpec, request.query as Record<string, unknown>, {
      maxPageSize: services.config.MAX_PAGE_SIZE,
      defaultPageSize: 100,
    });
    await awaitMinPosition(request, services, PROJECTIONS);
    const db = services.db;
    const page = applyPage(
      applyFilters(db.selectFrom('auth_providers').select(authProviderViewColumns), authProviderListSpec, query),
      authProviderListSpec,
      query,
    );
    const count = applyFilters(
      db.selectFrom('auth_providers').select((eb) => eb.fn.countAll<string>().as('total')),
      authProviderListSpec,
      query,
    );
    const [rows, counted] = await Promise.all([page.execute(), count.executeTakeFirstOrThrow()]);
    const range = contentRange(authProviderListSpec, query, rows.length, Number(counted.total));
    return reply.header('Content-Range', range).send(rows.map((row) => toAuthProviderView(row, baseUrl)));
  });

  app.get('/auth_providers/:id', async (request, reply) => {
    authorize(request, ADMIN);
    const { id } = parseInput(idParams, request.params, 'path');
    await awaitMinPosition(request, services, PROJECTIONS);
    return send(reply, await findAuthProvider(services.db, id, baseUrl), undefined);
  });

  app.post('/auth_providers', async (request, reply) => {
    authorize(request, ADMIN);
    const data = parseCreate(request.body ?? {});
    const id = services.newId();
    const { view, position } = await run(request, id, { type: 'CreateAuthProvider', data: { id, ...data } });
    warnIfGuest(request, view);
    void reply.header('Location', `/api/auth_providers/${id}`);
    return send(reply, view, position, 201);
  });

  app.patch('/auth_providers/:id', async (request, reply) => {
    authorize(request, ADMIN);
    const { id } = parseInput(idParams, request.params, 'path');
    const ifMatch = parseIfMatch(request);
    const body: unknown = request.body ?? {};
    for (let attempt = 1; ; attempt++) {
      // The stored type validates the configuration; the stored (decrypted) secrets replace the masks.
      const { state, revision } = await loadAggregate(deps, authProviderAggregate, id);
      if (state.status !== 'active') throw notFound('auth provider not found');
      const changes = parsePatch(body, state);
      // Restored secrets are right only at the revision they were read at: pin it, and re-read on a race.
      const pinned = ifMatch ?? (changes.configuration === undefined ? undefined : revision);
      const outcome = await run(request, id, { type: 'UpdateAuthProvider', data: { changes } }, pinned).catch((error: unknown) => {
        if (ifMatch !== undefined || !(error instanceof AppError) || error.code !== 'PRECONDITION_FAILED') throw error;
        if (attempt >= 3) throw new AppError('CONFLICT', 'the auth_provider is being modified concurrently; try again', { cause: error });
        return undefined;
      });
      if (outcome) return send(reply, outcome.view, outcome.position);
    }
  });

  app.post('/auth_providers/:id/actions/:action', async (request, reply) => {
    authorize(request, ADMIN);
    const { id, action } = parseInput(actionParams, request.params, 'path');
    const expectedRevision = parseIfMatch(request);
    const command: AuthProviderCommand =
      action === 'enable'
        ? { type: 'EnableAuthProvider' }
        : { type: 'DisableAuthProvider', data: { leavesSuperSignIn: await leavesSuperSignIn(services.db, id) } };
    const { view, position } = await run(request, id, command, expectedRevision);
    if (action === 'enable') warnIfGuest(request, view);
    return send(reply, view, position);
  });

  app.delete('/auth_providers/:id', async (request, reply) => {
    authorize(request, ADMIN);
    const { id } = parseInput(idParams, request.params, 'path');
    const expectedRevision = parseIfMatch(request);
    const command: AuthProviderCommand = {
      type: 'DeleteAuthProvider',
      data: { leavesSuperSignIn: await leavesSuperSignIn(services.db, id) },
    };
    const result = await executeCommand(deps, authProviderAggregate, id, command, {
      ...commandContext(request, services.now()),
      expectedRevision,
    });
    if (result.position !== undefined) {
      await services.waitFor(PROJECTIONS, result.position);
      void reply.header('X-Position', String(result.position));
    }
    return reply.status(204).send();
  });

  // The login page lists these before anyone has signed in.
  app.get('/auth/providers', { config: { public: true } }, async (request, reply) => {
    await awaitMinPosition(request, services, PROJECTIONS);
    return reply.send(await listLoginOptions(services.db));
  });
}
