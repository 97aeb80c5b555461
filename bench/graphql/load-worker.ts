/**
 * Child process of runLoad: runs autocannon for one LoadSpec (an untimed warm-up, then the measured
 * run, announced as it begins) and sends back every latency (a RawRun). Latencies are taken per
 * response because autocannon's own histogram has 1 ms resolution, too coarse for single-row queries.
 */
import autocannon, { type Result } from 'autocannon';
import { performance } from 'node:perf_hooks';
import type { LoadSpec, RawRun, WorkerReply } from './load.js';

// A GraphQL error still answers 200; it must not count as a served request. (A substring test keeps
// the check cheap: both the service and the floor answer {"data": …} and neither name a field `errors`.)
const servedData = (body: string): boolean => body.startsWith('{"data":{') && !body.includes('"errors":');

function attack(spec: LoadSpec, seconds: number, latencies?: number[]): Promise<Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'POST',
        headers: { ...spec.headers, 'content-type': 'application/json' },
        connections: spec.connections,
        duration: seconds,
        timeout: 30,
        requests: [{ setupRequest: (request) => ({ ...request, body: spec.bodies[next++ % spec.bodies.length] ?? '' }) }],
        verifyBody: servedData,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      instance.on('response', (_client, status, _bytes, ms) => {
        if (status === 200) latencies.push(ms);
      });
    }
  });
}

async function measure(spec: LoadSpec, say: (message: WorkerReply) => void): Promise<RawRun> {
  if (spec.warmupSeconds > 0) await attack(spec, spec.warmupSeconds);
  say({ measuring: true });
  const latencies: number[] = [];
  const started = performance.now();
  const result = await attack(spec, spec.durationSeconds, latencies);
  // A mismatch (a GraphQL error) still answered 200 and was timed; any failure fails the bench anyway.
  return {
    latencies,
    elapsedMs: performance.now() - started,
    failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
  };
}

process.once('message', (spec: LoadSpec) => {
  const reply = (message: WorkerReply): void => void process.send?.(message);
  measure(spec, reply).then(
    (run) => reply({ ok: true, run }),
    (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
