import { useQuery } from '@tanstack/react-query';
import { api } from './client';

/** A grant on one entity, as `GET /api/{plural}/{id}/permissions` lists it. */
export interface EntityGrant {
  readonly subjectType: 'user' | 'team';
  readonly subjectId: string;
  readonly subjectName: string | null;
  readonly level: 'read' | 'write' | 'admin';
  readonly grantedAt: string;
}

/** What the caller may do with one entity, and who else may (docs/contract.md §6). */
export interface EntityAccess {
  readonly myPermissions: readonly string[];
  readonly availableActions: readonly string[];
  readonly owner: { readonly id: string; readonly name: string | null } | null;
  readonly myTeamRole: 'member' | 'lead' | null;
  readonly grants: readonly EntityGrant[];
}

/** The query key of an entity's permissions view (refetched after a change to its grants). */
export const accessKey = (resource: string, id: unknown) => ['entity-access', resource, String(id)] as const;

/**
 * The caller's permissions view of the entity `id` of `resource`: the buttons a page shows are the
 * actions it lists, so only what would work is offered. Undefined while it loads.
 */
export function useEntityAccess(resource: string, id: unknown): EntityAccess | undefined {
  const { data } = useQuery({
    queryKey: accessKey(resource, id),
    queryFn: async ({ signal }) =>
      (await api<EntityAccess>(`/api/${resource}/${encodeURIComponent(String(id))}/permissions`, { signal })).body,
    enabled: id !== undefined && id !== null && id !== '',
  });
  return data;
}

/** Whether the caller may take `action` on the entity (false while unknown). */
export const mayDo = (access: EntityAccess | undefined, action: string): boolean => access?.availableActions.includes(action) ?? false;
