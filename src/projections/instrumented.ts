import type { Metrics } from '../metrics.js';
import type { Projection } from './projection.js';

/** A projection whose batches are timed (`infraledger_projection_batch_duration_seconds{projection}`). */
export function timedProjection(projection: Projection, metrics: Pick<Metrics, 'projectionBatchDuration'>): Projection {
  return {
    name: projection.name,
    tables: projection.tables,
    // A getter: some projections work their handled types out on first use.
    get handles() {
      return projection.handles;
    },
    async applyBatch(tx, events) {
      const done = metrics.projectionBatchDuration.startTimer({ projection: projection.name });
      try {
        await projection.applyBatch(tx, events);
      } finally {
        done();
      }
    },
    // Rebuilds replay set-based where the projection can.
    ...(projection.replay ? { replay: projection.replay.bind(projection) } : {}),
  };
}
