import type { FastifyPluginCallback } from 'fastify';

/** Traces being exported: the plugin that gives Fastify's routes their spans, and a flush for shutdown. */
export interface Tracing {
  /** Registered first on the app (src/http/app.ts), so every route and hook is covered. */
  readonly fastifyPlugin: FastifyPluginCallback;
  /** Sends what is buffered and stops exporting (graceful shutdown). */
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** The tracing this process started, if any (buildApp registers its Fastify plugin). */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** Health probes and scrapes would be most spans and say nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry tracing (the official SDK), exporting over OTLP/HTTP to the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (`…/v1/traces`; `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and `OTEL_BSP_*` are honoured by the SDK).
 * Must run before the service's modules load: the http, pg and graphql instrumentations patch those
 * modules as they are first required. The SDK is imported here, on demand, so a service without
 * tracing never loads it.
 */
export async function startTracing(version: string): Promise<Tracing> {
  if (active) return active;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { registerInstrumentations },
    resources,
    { HttpInstrumentation },
    { PgInstrumentation },
    { GraphQLInstrumentation },
    fastifyOtel,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-graphql'),
    import('@fastify/otel'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over these defaults.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'infraledger', 'service.version': version })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  const FastifyOtel = fastifyOtel.FastifyOtelInstrumentation;
  const fastify = new FastifyOtel({ ignorePaths: (route: { url: string }) => UNTRACED_PATHS.has(route.url) });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? '') }),
      // Only statements inside a traced request or command: the projections' polling would drown them.
      new PgInstrumentation({ requireParentSpan: true }),
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true }),
      fastify,
    ],
  });
  active = {
    fastifyPlugin: fastify.plugin(),
    async shutdown() {
      await provider.shutdown();
    },
  };
  return active;
}
