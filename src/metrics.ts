import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics (prom-client). Each set of services has its own registry (tests
 * run many in one process); the process defaults (`process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_seconds`, …) live in one registry per process and are merged in on scrape.
 * Labels only ever hold closed sets (route patterns, status codes, projection names, sign-in
 * methods and reasons): never an id, a URL as sent, a token or a secret.
 */

/** What a projection looks like to a scrape. */
export interface ProjectionSample {
  readonly name: string;
  readonly position: bigint | undefined;
  /** Events between the projection and the head of the log. */
  readonly lag: number;
  readonly failed: boolean;
}

/** The instruments the service records into. */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly graphqlOperationDuration: Histogram<'operation'>;
  readonly graphqlErrors: Counter<'code'>;
  readonly projectionBatchDuration: Histogram<'projection'>;
  readonly eventStoreAppends: Counter<'outcome'>;
  readonly eventStoreAppendedEvents: Counter;
  readonly eventStoreRevisionConflicts: Counter;
  readonly signIns: Counter<'method' | 'outcome' | 'reason'>;
  readonly rateLimitRefusals: Counter<'limiter'>;
  /**
   * Reads a standby served, or passed to the primary (READ_DATABASE_URL): requests
   * (src/http/read-routing.ts) and a subscription's reads for a change (src/edge/standby-reads.ts).
   */
  readonly standbyReads: Counter<'standby' | 'outcome'>;
  /** Where projection positions and lags come from at scrape time (set once the runners exist). */
  sampleProjections: () => Promise<readonly ProjectionSample[]>;
  /** The exposition text: this registry and the process defaults. */
  render(): Promise<{ contentType: string; body: string }>;
}

let processRegistry: Registry | undefined;

/** The process-wide default metrics, collected once however many service sets a process opens. */
function processDefaults(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Request and operation durations: 5 ms to 10 s (reads are milliseconds, writes wait for read models). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A fresh registry with every instrument of the service. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const position = new Gauge({
    name: 'infraledger_projection_position',
    help: 'Global position of the last event a projection applied',
    labelNames: ['projection'],
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'infraledger_projection_lag_events',
    help: 'Events between a projection and the head of the event log',
    labelNames: ['projection'],
    registers: [registry],
  });
  const failed = new Gauge({
    name: 'infraledger_projection_failed',
    help: '1 while a projection is stopped on a poison event (it needs a rebuild)',
    labelNames: ['projection'],
    registers: [registry],
  });
  const metrics: Metrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: 'infraledger_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    graphqlOperationDuration: new Histogram({
      name: 'infraledger_graphql_operation_duration_seconds',
      help: 'GraphQL operations over HTTP by operation type (query, mutation; none when refused before execution)',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    graphqlErrors: new Counter({
      name: 'infraledger_graphql_errors_total',
      help: 'GraphQL errors answered, by extensions.code',
      labelNames: ['code'],
      registers: [registry],
    }),
    projectionBatchDuration: new Histogram({
      name: 'infraledger_projection_batch_duration_seconds',
      help: 'Time a projection spends applying one batch of events',
      labelNames: ['projection'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
    eventStoreAppends: new Counter({
      name: 'infraledger_event_store_appends_total',
      help: 'Appends to the event store by outcome (ok, conflict: a stream moved since it was read, error)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    eventStoreAppendedEvents: new Counter({
      name: 'infraledger_event_store_appended_events_total',
      help: 'Events appended to the event store',
      registers: [registry],
    }),
    eventStoreRevisionConflicts: new Counter({
      name: 'infraledger_event_store_revision_conflicts_total',
      help: 'Appends refused because a stream was not at the expected revision (the command is decided again)',
      registers: [registry],
    }),
    signIns: new Counter({
      name: 'infraledger_sign_ins_total',
      help: 'Sign-ins by method (service_account, session for single sign-on, guest, backstage), outcome and reason of a failure',
      labelNames: ['method', 'outcome', 'reason'],
      registers: [registry],
    }),
    rateLimitRefusals: new Counter({
      name: 'infraledger_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate limiter',
      labelNames: ['limiter'],
      registers: [registry],
    }),
    standbyReads: new Counter({
      name: 'infraledger_standby_reads_total',
      help:
        "Reads sent to a hot standby (requests, and a subscription's reads for a change): served there, or passed to the primary " +
        '(behind past the bound, or unreachable)',
      labelNames: ['standby', 'outcome'],
      registers: [registry],
    }),
    sampleProjections: () => Promise.resolve([]),
    async render() {
      // Sampled once per scrape: the head of the log is one query, whatever the number of projections.
      const samples = await metrics.sampleProjections();
      position.reset();
      lag.reset();
      failed.reset();
      for (const sample of samples) {
        position.set({ projection: sample.name }, Number(sample.position ?? 0n));
        lag.set({ projection: sample.name }, sample.lag);
        failed.set({ projection: sample.name }, sample.failed ? 1 : 0);
      }
      const merged = Registry.merge([registry, processDefaults()]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
  return metrics;
}
