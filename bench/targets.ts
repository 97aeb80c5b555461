import { formatRate } from './stats.js';

/** The performance targets, checked on PostgreSQL. */
export const TARGETS = {
  /** Projection replay through a rebuild, events/s (issue 20). */
  rebuildEventsPerSecond: 50_000,
  /** Projection replay by the live hub catching up, events/s (issue 2). */
  replayEventsPerSecond: 10_000,
  /** Appends with 8 concurrent writers, events/s. */
  append8EventsPerSecond: 1_000,
} as const;

/** The PostgreSQL figures the targets are checked against. */
export interface TargetInputs {
  readonly rebuildEventsPerSecond: number;
  readonly runnerEventsPerSecond: number;
  readonly append8EventsPerSecond: number;
}

/** One target line: what, the measured figure, the bar and whether it is met. */
export interface TargetCheck {
  readonly label: string;
  readonly measured: number;
  readonly target: number;
  readonly met: boolean;
}

/** Checks every target (replay is checked both as a rebuild and as a live runner catching up). */
export function checkTargets(inputs: TargetInputs): TargetCheck[] {
  const check = (label: string, measured: number, target: number): TargetCheck => ({ label, measured, target, met: measured >= target });
  return [
    check('replay, rebuildProjection', inputs.rebuildEventsPerSecond, TARGETS.rebuildEventsPerSecond),
    check('replay, runner catch-up', inputs.runnerEventsPerSecond, TARGETS.replayEventsPerSecond),
    check('appends, 8 writers', inputs.append8EventsPerSecond, TARGETS.append8EventsPerSecond),
  ];
}

/** The checks as aligned report lines. */
export function formatTargets(checks: readonly TargetCheck[]): string[] {
  const width = Math.max(...checks.map((c) => c.label.length));
  return checks.map(
    (c) =>
      `  ${c.label.padEnd(width)}  ${formatRate(c.measured).padStart(8)} events/s  (target ≥ ${formatRate(c.target)})  ` +
      (c.met ? 'MET' : 'NOT MET'),
  );
}
