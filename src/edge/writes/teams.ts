import type { CatalogCommand, CatalogState } from '../../commands/catalog-entity.js';
import type { TeamFields } from '../../events/team.js';
import { teamEntity } from '../../model/team.js';
import type { Services } from '../../services.js';
import { authorize } from '../authorize.js';
import { entityInput } from '../entity-input.js';
import { catalogWrites, type WriteTarget } from './catalog.js';
import type { WriteOperations } from './write.js';

/**
 * The fields of a team that only holders of `team:write` change (docs/contract.md §6): its name,
 * and whether its approvers may approve their own requests (a lead must not lift their own
 * separation of duties). Leads change the rest (members, leads, groups).
 */
const GOVERNED: readonly (keyof TeamFields)[] = ['name', 'allowSelfApproval'];

/**
 * Teams: created, renamed, enabled, disabled and deleted by holders of `team:write`; a team's leads
 * administer its membership (the entity rule gives them `admin` on their team).
 */
export function teamWrites(services: Services, target: WriteTarget<CatalogCommand<TeamFields>, CatalogState<TeamFields>>): WriteOperations {
  const input = entityInput(teamEntity);
  const writes = catalogWrites(services, target, {
    parseCreate: (body) => input.parseCreate(body),
    parsePatch: (body, current, call) => {
      const changes = input.parsePatch(body, current);
      if (GOVERNED.some((field) => changes[field] !== undefined && changes[field] !== current[field]))
        authorize(call.request, 'team:write');
      return changes;
    },
  });
  return {
    ...writes,
    act: (call, id, action, body) => {
      authorize(call.request, 'team:write');
      return writes.act(call, id, action, body);
    },
    remove: (call, id) => {
      authorize(call.request, 'team:write');
      return writes.remove(call, id);
    },
  };
}
