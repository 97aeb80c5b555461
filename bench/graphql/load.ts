import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { perSecond, percentile } from '../stats.js';

/** One load run: POST `bodies` (in turn, one per request) to `url` from `connections` clients. */
export interface LoadSpec {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodies: readonly string[];
  readonly connections: number;
  /** Untimed run first, so both servers meet the measured run warm. */
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
}

/** What the measured run saw: only 200 answers without GraphQL errors count as requests. */
export interface LoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Milliseconds, from autocannon's per-response timings (sub-millisecond, unlike its 1 ms histogram). */
  readonly p50: number;
  readonly p99: number;
  /** Connection errors, timeouts, non-2xx answers and bodies holding `errors`. */
  readonly failures: number;
}

/** One measured run as the worker saw it: every served request's latency (ms) and what failed. */
export interface RawRun {
  readonly latencies: number[];
  readonly elapsedMs: number;
  readonly failures: number;
}

/** What the load worker says: that its measured run begins (after the warm-up), then how the run went. */
export type WorkerReply =
  { readonly measuring: true } | { readonly ok: true; readonly run: RawRun } | { readonly ok: false; readonly error: string };

/** Several runs of one side taken as one: requests over the summed time, percentiles over every latency. */
export function combine(runs: readonly RawRun[]): LoadResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const elapsed = runs.reduce((sum, r) => sum + r.elapsedMs, 0);
  return {
    requests: latencies.length,
    requestsPerSecond: perSecond(latencies.length, elapsed),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
  };
}

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

/**
 * Runs autocannon in a child process, so the load generator's JavaScript does not share the
 * server's event loop (it still shares the machine's cores: see the report's note). `onMeasuring` is
 * called as the measured run begins, after the warm-up: what a caller metering CPU reads first.
 */
export function runLoad(spec: LoadSpec, onMeasuring?: () => void): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      action();
    };
    child.on('message', (message: WorkerReply) => {
      if ('measuring' in message) {
        onMeasuring?.();
        return;
      }
      settle(() => (message.ok ? resolve(message.run) : reject(new Error(`load worker: ${message.error}`))));
      child.disconnect();
    });
    child.on('error', (error) => settle(() => reject(error)));
    child.on('exit', (code) => settle(() => reject(new Error(`load worker exited with code ${code} before answering`))));
    child.send(spec);
  });
}
