/** Permissions as GET /api/auth/me lists them: `{resource}:{read|write|admin}`, admin ⊃ write ⊃ read. */
export type Level = 'read' | 'write' | 'admin';

export interface Me {
  readonly id: string;
  readonly kind: 'human' | 'service_account' | 'guest';
  readonly identifier: string;
  readonly email: string | null;
  readonly displayName: string | null;
  readonly name: string;
  readonly provider: string | null;
  readonly roles: readonly string[];
  readonly grants: readonly string[];
  readonly permissions: readonly string[];
  readonly method: string;
  /** The teams the caller is in (listed, or by a group of their sign-in), with their role. */
  readonly teams: readonly MyTeam[];
}

/** A team of the caller's. */
export interface MyTeam {
  readonly id: string;
  readonly name: string;
  readonly role: 'member' | 'lead';
}

const LEVELS: readonly Level[] = ['read', 'write', 'admin'];

/** Whether `permissions` include `resource:level` (a higher level includes the lower ones). */
export function allows(permissions: readonly string[] | undefined, resource: string, level: Level): boolean {
  return (permissions ?? []).some((p) => {
    const [r, l] = p.split(':');
    return r === resource && LEVELS.indexOf(l as Level) >= LEVELS.indexOf(level);
  });
}

/** The react-admin resource (REST plural) → the permission resource that guards it. */
export const PERMISSION_OF: Readonly<Record<string, string>> = {
  templates: 'template',
  integrations: 'integration',
  secrets: 'secret',
  workspaces: 'workspace',
  source_codes: 'source_code',
  source_code_versions: 'source_code_version',
  storages: 'storage',
  executors: 'executor',
  resources: 'resource',
  teams: 'team',
  webhooks: 'webhook',
  auth_providers: 'auth_provider',
  users: 'user',
  audit_log: 'audit_log',
};
