import type { AuthProvider } from 'react-admin';
import { api } from './client';
import { allows, PERMISSION_OF, type Me } from './permissions';
import { problemError, toProblem } from './problem';
import { ensureSession, onSessionChange, SignInRefused, signInGuest, signInServiceAccount, signOut } from './session';

/** What login() takes: the service-account form, or the guest button. */
export type LoginParams = { readonly method: 'service_account'; readonly identifier: string; readonly password: string } | { readonly method: 'guest' };

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

/** Who may do what on a react-admin resource, from the caller's permissions (docs/contract.md §6). */
export function canDo(permissions: readonly string[], userId: string, resource: string, action: string, record?: Record<string, unknown>): boolean {
  if (resource === 'personal_access_tokens') return true;
  const guarded = PERMISSION_OF[resource];
  if (guarded === undefined) return true;
  if (action === 'list' || action === 'show') {
    // Anyone reads the audit entries of what they may read; the whole log needs audit_log:read.
    return resource === 'audit_log' ? allows(permissions, 'audit_log', 'read') : allows(permissions, guarded, 'read');
  }
  if (resource === 'users' || resource === 'auth_providers') return allows(permissions, guarded, 'admin');
  if (resource === 'audit_log') return false;
  if (resource === 'resources') {
    // Role default requests resources and then acts as their owner.
    if (action === 'create') return allows(permissions, 'resource', 'read');
    return allows(permissions, 'resource', 'write') || (record !== undefined && record.creatorId === userId);
  }
  return allows(permissions, guarded, 'write');
}

export const authProvider: AuthProvider = {
  async login(params: LoginParams) {
    if (params.method === 'guest') await signInGuest().catch(signInError);
    else await signInServiceAccount(params.identifier, params.password).catch(signInError);
    return { redirectTo: '/' };
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
    return canDo(user.permissions, user.id, resource, action, record);
  },
};
