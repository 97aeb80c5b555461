import { allProjections } from '../projections/registry.js';
import type { Services } from '../services.js';
import { readRoute } from '../storage/read-route.js';

const PROJECTIONS = allProjections.map((projection) => projection.name);

/**
 * Runs the reads a subscription makes for one change (its actor, whether the caller may see a
 * team's secret or integration) on a hot standby (READ_DATABASE_URL), once the standby's projection
 * checkpoints show the change's position: what the primary would answer for that change, never
 * older. Without standbys, or when the standby is behind past READ_YOUR_WRITES_TIMEOUT_MS or cannot
 * be asked, `read` runs on the primary (logged, and counted as request reads are).
 */
export async function readAtChange<T>(services: Services, position: bigint, read: () => Promise<T>): Promise<T> {
  const replicas = services.readReplicas;
  if (!replicas) return read();
  const replica = replicas.pick();
  const count = (outcome: 'served' | 'behind' | 'unreachable') => services.metrics.standbyReads.inc({ standby: replica.name, outcome });
  let shown: boolean;
  try {
    // Every projection's checkpoint moves with each batch (one transaction), so all show it as soon as one does.
    shown = await replicas.reached(replica, PROJECTIONS, position);
  } catch (error) {
    count('unreachable');
    services.log.warn({ err: error, standby: replica.name }, 'standby could not be asked: the primary reads for a change');
    return read();
  }
  if (!shown) {
    count('behind');
    services.log.warn(
      { standby: replica.name, position: String(position) },
      'standby behind a change past the bound: the primary reads for it',
    );
    return read();
  }
  count('served');
  return readRoute.run(replica.pool, read);
}
