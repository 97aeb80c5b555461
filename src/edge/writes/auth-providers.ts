import { z } from 'zod';
import { hasPrivateAddressLiteral } from '../../auth/sso/private-addresses.js';
import { leavesSuperSignIn } from '../../auth/super-sign-in.js';
import { checkFilterByDomain, checkProviderConfiguration, invalid } from '../../commands/auth-provider-config.js';
import {
  authProviderAggregate,
  type AuthProviderCommand,
  type AuthProviderFields,
  type AuthProviderState,
} from '../../commands/auth-provider.js';
import { loadAggregate } from '../../commands/handler.js';
import { AppError, notFound, unprocessable, type FieldIssue } from '../../errors.js';
import type { AuthProviderType } from '../../events/auth-provider.js';
import { accountCreateShape, accountPatchShape } from '../../model/account.js';
import { authProviderEntity } from '../../model/auth-provider.js';
import { findAuthProvider } from '../../read/auth-providers.js';
import type { Services } from '../../services.js';
import { zodIssues } from '../../validation.js';
import { authorize } from '../authorize.js';
import { CATALOG_ACTIONS, parseAction } from './catalog.js';
import { revokePersonalAccessTokens } from './personal-access-tokens.js';
import { runCommand, commandDeps, type WriteCall, type WriteOperations, type Written } from './write.js';

const PROJECTIONS = ['auth_providers'] as const;
const ADMIN = 'auth_provider:admin';
const AUTH_PROVIDER_ACTIONS = CATALOG_ACTIONS;
/** The reason every personal access token gets when their provider goes away. */
const PATS_ENDED = 'personal access tokens disabled';

/** What the log says each time a write leaves a guest provider enabled (docs/contract.md §5: the log warns). */
export const GUEST_WARNING = 'guest provider enabled: insecure, for development only';

/** POST /api/auth_providers body (src/model/auth-provider.ts), before the type-specific checks. Unknown fields are refused. */
export const createAuthProviderBody = z.strictObject(accountCreateShape(authProviderEntity));

/** PATCH /api/auth_providers/{id} body: any subset; `type` and `key` are accepted only to say they are immutable. */
export const patchAuthProviderBody = z.strictObject(accountPatchShape(authProviderEntity, { immutable: true }));

const providerType = authProviderEntity.fields.type.input;

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
  const type = providerType.safeParse(raw.type);
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

/**
 * The configured URLs the service itself fetches, per provider type (a browser follows
 * `authorizeUrl` and `redirectUrl`, the service never does).
 */
const FETCHED_URLS: Readonly<Record<string, readonly string[]>> = {
  backstage: ['jwksUrl'],
  github: ['tokenUrl', 'apiUrl'],
  google: ['issuer'],
  microsoft: ['issuer'],
};

/**
 * A URL the service fetches, written as a private, loopback or link-local address, is refused when it
 * is set, unless SSO_ALLOW_PRIVATE_ADDRESSES (host names are checked on the addresses they resolve
 * to, at every request: ../../auth/sso/guarded-fetch.ts).
 */
function refusePrivateUrls(type: string, configuration: Readonly<Record<string, unknown>> | undefined, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const issues = (FETCHED_URLS[type] ?? []).flatMap((name) => {
    const url = configuration?.[name];
    return typeof url === 'string' && hasPrivateAddressLiteral(url)
      ? [
          {
            field: `configuration.${name}`,
            message:
              'is a private, loopback or link-local address, which the service does not connect to (set ' +
              'SSO_ALLOW_PRIVATE_ADDRESSES=true to allow it)',
          },
        ]
      : [];
  });
  if (issues.length > 0) throw invalid(issues);
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
    const message =
      `key is immutable (it is "${state.fields.key}"): its users and its callback URL depend on it; create another ` + `provider instead`;
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

/**
 * The auth providers' writes (administrators only, docs/contract.md §5). Disabling or deleting the
 * last enabled way for a super user to sign in is refused by the decider, told so here.
 */
export function authProviderWrites(services: Services): WriteOperations & { readonly remove: NonNullable<WriteOperations['remove']> } {
  const deps = commandDeps(services);
  const run = (call: WriteCall, id: string, command: AuthProviderCommand, expectedRevision = call.expectedRevision): Promise<Written> =>
    runCommand(services, call, authProviderAggregate, PROJECTIONS, id, command, { expectedRevision });

  /** The provider if it is the personal_access_token one (its disable revokes every PAT: docs/contract.md §5). */
  const personalAccessTokenProvider = async (id: string): Promise<{ enabled: boolean } | undefined> => {
    const { state } = await loadAggregate(deps, authProviderAggregate, id);
    return state.status === 'active' && state.fields.type === 'personal_access_token' ? { enabled: state.enabled } : undefined;
  };

  const warnIfGuest = async (call: WriteCall, id: string): Promise<void> => {
    const view = await findAuthProvider(services.db, id, services.config.BASE_URL);
    if (view?.type === 'guest' && view.enabled)
      call.request.log.warn({ providerId: view.id, key: view.key, role: view.configuration.role }, GUEST_WARNING);
  };

  return {
    projections: PROJECTIONS,
    actions: AUTH_PROVIDER_ACTIONS,
    async create(call, body) {
      authorize(call.request, ADMIN);
      const data = parseCreate(body ?? {});
      refusePrivateUrls(data.type, data.configuration, services.config.SSO_ALLOW_PRIVATE_ADDRESSES);
      // Tokens a deleted provider left unrevoked must not revive with a new one.
      if (data.type === 'personal_access_token') await revokePersonalAccessTokens(services, call, {}, PATS_ENDED);
      const id = services.newId();
      const written = await run(call, id, { type: 'CreateAuthProvider', data: { id, ...data } });
      await warnIfGuest(call, id);
      return written;
    },
    async update(call, id, input) {
      authorize(call.request, ADMIN);
      const body: unknown = input ?? {};
      for (let attempt = 1; ; attempt++) {
        // The stored type validates the configuration; the stored (decrypted) secrets replace the masks.
        const { state, revision } = await loadAggregate(deps, authProviderAggregate, id);
        if (state.status !== 'active') throw notFound('auth provider not found');
        const changes = parsePatch(body, state);
        refusePrivateUrls(state.fields.type, changes.configuration, services.config.SSO_ALLOW_PRIVATE_ADDRESSES);
        // Restored secrets are right only at the revision they were read at: pin it, and re-read on a race.
        const pinned = call.expectedRevision ?? (changes.configuration === undefined ? undefined : revision);
        const written = await run(call, id, { type: 'UpdateAuthProvider', data: { changes } }, pinned).catch((error: unknown) => {
          if (call.expectedRevision !== undefined || !(error instanceof AppError) || error.code !== 'PRECONDITION_FAILED') throw error;
          if (attempt >= 3)
            throw new AppError('CONCURRENT_MODIFICATION', 'the auth_provider is being modified concurrently; try again', { cause: error });
          return undefined;
        });
        if (written) return written;
      }
    },
    async act(call, id, name) {
      authorize(call.request, ADMIN);
      const action = parseAction(AUTH_PROVIDER_ACTIONS, name);
      const pats = await personalAccessTokenProvider(id);
      // Enabling a disabled one revokes first whatever its disable left (a crash between its two
      // steps): none revives. (Enabling an enabled one changes nothing, and revokes nothing.)
      if (pats && !pats.enabled && action === 'enable') await revokePersonalAccessTokens(services, call, {}, PATS_ENDED);
      const command: AuthProviderCommand =
        action === 'enable'
          ? { type: 'EnableAuthProvider' }
          : { type: 'DisableAuthProvider', data: { leavesSuperSignIn: await leavesSuperSignIn(services.db, id) } };
      const written = await run(call, id, command);
      if (action === 'enable') await warnIfGuest(call, id);
      if (pats && action === 'disable') await revokePersonalAccessTokens(services, call, {}, PATS_ENDED);
      return written;
    },
    async remove(call, id) {
      authorize(call.request, ADMIN);
      const pats = await personalAccessTokenProvider(id);
      const written = await run(call, id, {
        type: 'DeleteAuthProvider',
        data: { leavesSuperSignIn: await leavesSuperSignIn(services.db, id) },
      });
      if (pats) await revokePersonalAccessTokens(services, call, {}, PATS_ENDED);
      return written;
    },
  };
}
