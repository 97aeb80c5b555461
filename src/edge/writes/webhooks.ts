import { loadAggregate } from '../../commands/handler.js';
import { webhookAggregate } from '../../commands/webhook.js';
import { redrive } from '../../delivery/cursors.js';
import { AppError, notFound } from '../../errors.js';
import { ensureAllowed } from '../../model/permissions.js';
import type { Principal } from '../../model/principal.js';
import { missingToManage, WEBHOOK_ACTIONS, webhookEntity } from '../../model/webhook.js';
import type { Services } from '../../services.js';
import { authorize } from '../authorize.js';
import { entityInput } from '../entity-input.js';
import { catalogWrites, parseAction, targetOf } from './catalog.js';
import { privateUrlCheck } from './private-urls.js';
import { commandDeps, runCommand, type WriteCall, type WriteOperations } from './write.js';

/**
 * A webhook is written by those who may manage it (src/model/webhook.ts `missingToManage`), before
 * and after the change: it carries its kinds' events out of the service. Its deliveries act as a
 * user (`deliversAsId`: its creator, or whoever took it over), so an event that user may not read is
 * not sent, and a webhook whose user was deactivated or lost the right is paused until someone who
 * may takes it over (docs/contract.md §9).
 */
export function webhookWrites(services: Services): WriteOperations {
  const input = entityInput(webhookEntity);
  const target = targetOf(webhookEntity, webhookAggregate);
  const refusePrivate = privateUrlCheck(services.config.WEBHOOK_ALLOWED_PRIVATE_RANGES);
  const administersKinds = (call: WriteCall, kinds: readonly string[]): Principal => {
    const principal = authorize(call.request);
    const missing = missingToManage(principal.permissions, kinds);
    if (missing !== undefined) ensureAllowed(principal.permissions, missing);
    return principal;
  };
  const writes = catalogWrites(services, target, {
    parseCreate: (body, call) => {
      const data = input.parseCreate(body);
      const principal = administersKinds(call, data.entityKinds);
      refusePrivate(data.url, 'url');
      return { ...data, deliversAsId: principal.userId, pausedReason: null };
    },
    parsePatch: (body, current, call) => {
      administersKinds(call, current.entityKinds);
      const changes = input.parsePatch(body, current);
      if (changes.entityKinds !== undefined) administersKinds(call, changes.entityKinds);
      refusePrivate(changes.url, 'url');
      return changes;
    },
  });
  const administersCurrent = async (call: WriteCall, id: string): Promise<Principal | undefined> => {
    const { state } = await loadAggregate(commandDeps(services), webhookAggregate, id);
    return state.status === 'active' ? administersKinds(call, state.fields.entityKinds) : undefined;
  };
  return {
    ...writes,
    actions: WEBHOOK_ACTIONS,
    act: async (call, id, action, body) => {
      const parsed = parseAction(WEBHOOK_ACTIONS, action);
      const principal = await administersCurrent(call, id);
      if (parsed === 'takeOver') {
        if (!principal) throw notFound('webhook not found');
        if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
          throw new AppError('VALIDATION', 'takeOver takes no body', { errors: [{ field: 'body', message: 'must be empty' }] });
        }
        // Deliveries act as the caller from now on, and a paused webhook delivers again from where it stopped.
        const changes = { deliversAsId: principal.userId, pausedReason: null };
        return runCommand(services, call, webhookAggregate, writes.projections, id, { type: 'Update', data: { changes } });
      }
      if (parsed !== 'redrive') return writes.act(call, id, parsed, body);
      // The delivery state is not an entity's: re-driving moves the cursor, and says so in the log.
      authorize(call.request, 'webhook:write');
      if (await redrive(services.pool, id)) services.log.info({ webhookId: id, by: principal?.userId }, 'webhook re-driven');
      return { id, deleted: false };
    },
    remove: async (call, id) => {
      await administersCurrent(call, id);
      return writes.remove(call, id);
    },
  };
}
