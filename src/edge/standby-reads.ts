import type { Logger } from '../log.js';
import { allProjections } from '../projections/registry.js';
import type { ReadReplica, ReadReplicas } from '../read/replicas.js';
import type { Services } from '../services.js';
import type { SqlPool } from '../storage/pool.js';
import { readRoute } from '../storage/read-route.js';

const PROJECTIONS = allProjections.map((projection) => projection.name);

/**
 * The standby a read goes to (READ_DATABASE_URL), taken in turn, once `shows` says it shows what
 * the read needs; undefined when there is none, or it is behind past READ_YOUR_WRITES_TIMEOUT_MS, or
 * it cannot be reached: the primary reads instead (counted per read in
 * infraledger_standby_reads_total; logged when a standby falls behind or out of reach, and when it is
 * back: src/read/replicas.ts).
 */
export async function standbyFor(
  services: Services,
  shows: (replicas: ReadReplicas, replica: ReadReplica) => Promise<boolean>,
  log: { readonly warn: Logger['warn'] },
): Promise<SqlPool | undefined> {
  const replicas = services.readReplicas;
  if (!replicas) return undefined;
  const replica = replicas.pick();
  const count = (outcome: 'served' | 'behind' | 'unreachable') => services.metrics.standbyReads.inc({ standby: replica.name, outcome });
  if (!replicas.usable(replica.pool)) {
    count('unreachable');
    return undefined;
  }
  let shown: boolean;
  try {
    shown = await shows(replicas, replica);
  } catch (error) {
    count('unreachable');
    if (!replicas.failed(replica.pool, error)) {
      log.warn({ err: error, standby: replica.name }, 'standby could not be asked: the primary reads instead');
    }
    return undefined;
  }
  if (!shown) {
    count('behind');
    return undefined;
  }
  count('served');
  return replica.pool;
}

/**
 * Runs the reads a subscription makes for one change (its actor, whether the caller may see a
 * team's secret or integration) on a standby once its projection checkpoints show the change's
 * position: what the primary would answer for that change, never older; else on the primary.
 */
export async function readAtChange<T>(services: Services, position: bigint, read: () => Promise<T>): Promise<T> {
  // Every projection's checkpoint moves with each batch (one transaction), so all show it as soon as one does.
  const standby = await standbyFor(services, (replicas, replica) => replicas.reached(replica, PROJECTIONS, position), services.log);
  return standby ? readRoute.run(standby, read) : read();
}
