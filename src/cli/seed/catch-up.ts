import { isAppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { SeedError } from './writer.js';

/** How far the slowest projection is behind, for reports while waiting. */
export interface CatchUpLag {
  readonly projection: string;
  readonly behind: bigint;
}

/** Everything this process's runners applied, summed: it grows whenever any projection moves. */
const progressOf = (services: Services): bigint => services.runners.reduce((sum, r) => sum + (r.position ?? 0n), 0n);

/** The projection furthest behind, and how many events it has still to apply (positions are not dense). */
async function slowest(services: Services, position: bigint): Promise<CatchUpLag> {
  let last: { name: string; position: bigint | undefined } | undefined;
  for (const runner of services.runners) {
    if (last === undefined || (runner.position ?? -1n) < (last.position ?? -1n))
      last = { name: runner.projection.name, position: runner.position };
  }
  if (!last || (last.position ?? -1n) >= position) return { projection: '-', behind: 0n };
  return { projection: last.name, behind: BigInt(await services.store.countAfter(last.position, 10_000_000)) };
}

/**
 * Waits until every projection applied everything up to `position`. `services.waitFor` gives up
 * after READ_YOUR_WRITES_TIMEOUT_MS; this waits again as long as the projections keep moving, and
 * fails when they stopped (a poison event, or no progress within one timeout).
 */
export async function waitForProjections(
  services: Services,
  position: bigint | undefined,
  onWaiting?: (lag: CatchUpLag) => void,
): Promise<void> {
  if (position === undefined) return;
  const names = services.runners.map((r) => r.projection.name);
  let seen = progressOf(services);
  for (;;) {
    try {
      await services.waitFor(names, position);
      return;
    } catch (error) {
      if (!isAppError(error) || error.category !== 'UNAVAILABLE') throw error;
      const failed = services.runners.filter((r) => r.state === 'failed').map((r) => r.projection.name);
      if (failed.length > 0) {
        throw new SeedError(
          `the writes are stored, but projection(s) ${failed.join(', ')} stopped on a poison event: see npm run projections -- status`,
          { cause: error },
        );
      }
      const now = progressOf(services);
      if (now === seen) {
        const lag = await slowest(services, position);
        throw new SeedError(
          `the writes are stored, but the projections stopped catching up (${lag.projection} is ${lag.behind} behind position ${position})`,
          { cause: error },
        );
      }
      seen = now;
      onWaiting?.(await slowest(services, position));
    }
  }
}
