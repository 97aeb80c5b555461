import type { EventEmitter } from 'node:events';
import type { Projection } from './projection.js';
import { ProjectionHub, type ProjectionLane, type RunnerDeps, type RunnerState } from './hub.js';

export { applyEvents, PoisonEvent, projectionLockKey } from './apply.js';
export type { ProjectionLane, RunnerDeps, RunnerState } from './hub.js';

/**
 * One projection run on its own: a hub of one (./hub.ts). The service runs every projection in one
 * hub; this is for tools and tests that run a single projection.
 */
export class ProjectionRunner implements ProjectionLane {
  private readonly hub: ProjectionHub;
  private readonly lane: ProjectionLane;

  constructor(
    readonly projection: Projection,
    deps: RunnerDeps,
  ) {
    this.hub = new ProjectionHub([projection], deps);
    this.lane = this.hub.projections[0] as ProjectionLane;
  }

  get progress(): EventEmitter {
    return this.lane.progress;
  }

  get state(): RunnerState {
    return this.lane.state;
  }

  get position(): bigint | undefined {
    return this.lane.position;
  }

  start(): void {
    this.hub.start();
  }

  stop(): Promise<void> {
    return this.hub.stop();
  }
}
