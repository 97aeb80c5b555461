import { useQuery } from '@tanstack/react-query';
import { whoAmI } from './authProvider';
import { allows, type Me } from './permissions';

/** The signed-in caller (`GET /api/auth/me`, once per session). Undefined while it loads. */
export function useMe(): Me | undefined {
  return useQuery({ queryKey: ['me'], queryFn: whoAmI }).data;
}

/**
 * Whether the caller decides some resource requests (docs/contract.md §6): holders of
 * `resource:write` (templates no team owns) and the leads of a team (its templates' requests).
 */
export const decidesRequests = (me: Me | undefined): boolean =>
  allows(me?.permissions, 'resource', 'write') || (me?.teams ?? []).some((team) => team.role === 'lead');
