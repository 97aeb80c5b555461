import type { AuthProvider } from 'react-admin';
import { api } from './client';
import { allows, PERMISSION_OF, type Me, type MyTeam } from './permissions';
import { problemError, toProblem } from './problem';
import { ensureSession, onSessionChange, SignInRefused, signInGuest, signInServiceAccount, signOut } from './session';

/** What login() takes: the service-account form, or the guest button. */
export type LoginParams =
  { readonly method: 'service_account'; readonly identifier: string; readonly password: string } | { readonly method: 'guest' };

let me: Promise<Me> | undefined;
// Roles and grants belong to the session: a new one (or none) reads them again.
onSessionChange(() => {
  me = undefined;
});

/** GET /api/auth/me, once per session. */
export function whoAmI(): Promise<Me> {
  me ??= api<Me>('/api/auth/me').then(
    (r) => r.body,
    (error: unknown) => {
      me = undefined;
      throw error;
    },
  );
  return me;
}

/** Turns a failed sign-in response into the error the login page shows. */
async function signInError(error: unknown): Promise<never> {
  if (error instanceof SignInRefused) {
    const body: unknown = await error.response.json().catch(() => undefined);
    throw problemError(toProblem(error.response.status, body, 'sign-in failed'));
  }
  throw error;
}

/**
 * Who may do what on a react-admin resource, from the caller's permissions and teams (docs/contract.md
 * §6): members of the owning team write what it owns, and may create entities their team owns. What
 * grants on one entity allow is asked of the service (`canAccess`).
 */
export function canDo(
  permissions: readonly string[],
  userId: string,
  resource: string,
  action: string,
  record?: Record<string, unknown>,
  teams: readonly MyTeam[] = [],
): boolean {
  if (resource === 'personal_access_tokens') return true;
  const guarded = PERMISSION_OF[resource];
  if (guarded === undefined) return true;
  if (action === 'list' || action === 'show') {
    // Anyone reads the audit entries of what they may read; the whole log needs audit_log:read.
    return resource === 'audit_log' ? allows(permissions, 'audit_log', 'read') : allows(permissions, guarded, 'read');
  }
  if (resource === 'users' || resource === 'auth_providers') return allows(permissions, guarded, 'admin');
  if (resource === 'audit_log') return false;
  if (resource === 'teams') {
    if (action === 'create' || action === 'delete') return allows(permissions, 'team', 'write');
    return allows(permissions, 'team', 'write') || teams.some((team) => team.id === record?.id && team.role === 'lead');
  }
  const ownTeam = record !== undefined && teams.some((team) => team.id === record.ownerId);
  if (resource === 'resources') {
    // Role default requests resources and then acts as their owner.
    if (action === 'create') return allows(permissions, 'resource', 'read');
    return allows(permissions, 'resource', 'write') || ownTeam || (record !== undefined && record.creatorId === userId);
  }
  if (action === 'create') return allows(permissions, guarded, 'write') || teams.length > 0;
  return allows(permissions, guarded, 'write') || ownTeam;
}

/** The resources with per-entity permissions (`GET /api/{plural}/{id}/permissions`): the catalog and teams. */
const WITH_GRANTS: ReadonlySet<string> = new Set([
  'templates',
  'integrations',
  'secrets',
  'workspaces',
  'source_codes',
  'source_code_versions',
  'storages',
  'executors',
  'resources',
  'teams',
  'webhooks',
]);

/** Whether a grant on the entity lets the caller take `action` (asked when the roles and teams do not). */
async function grantAllows(resource: string, action: string, record: Record<string, unknown> | undefined): Promise<boolean> {
  const id = record?.id;
  if ((typeof id !== 'string' && typeof id !== 'number') || !WITH_GRANTS.has(resource) || (action !== 'edit' && action !== 'delete'))
    return false;
  const { body } = await api<{ availableActions: string[] }>(`/api/${resource}/${encodeURIComponent(String(id))}/permissions`);
  return body.availableActions.includes(action === 'edit' ? 'update' : 'delete');
}

export const authProvider: AuthProvider = {
  async login(params: LoginParams) {
    if (params.method === 'guest') await signInGuest().catch(signInError);
    else await signInServiceAccount(params.identifier, params.password).catch(signInError);
    // No redirectTo: react-admin then opens the page that asked for sign-in (a deep link), else `/`.
    return undefined;
  },

  async logout() {
    await signOut();
    return '/login';
  },

  async checkAuth() {
    if (!(await ensureSession())) throw new Error('Sign in to continue.');
  },

  async checkError(error: { status?: number }) {
    if (error.status === 401) {
      await signOut();
      throw new Error('Your session has ended; sign in again.');
    }
    // 403 and the rest are shown where they happen; they do not end the session.
  },

  async getIdentity() {
    const user = await whoAmI();
    return { id: user.id, fullName: user.name };
  },

  async getPermissions() {
    return (await whoAmI()).permissions;
  },

  async canAccess({ resource, action, record }) {
    const user = await whoAmI();
    if (canDo(user.permissions, user.id, resource, action, record, user.teams)) return true;
    return grantAllows(resource, action, record).catch(() => false);
  },
};
