import { SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { activeTracing } from './telemetry.js';

/**
 * Spans of the service's own work (a command's decide and append, the wait for read models). Without
 * tracing started (src/telemetry.ts) they are skipped: the API's no-op span, context and promise
 * wrapper cost each write a few microseconds for nothing.
 */
const tracer = trace.getTracer('infraledger');

/**
 * Runs `work` inside a span named `name`, a child of whatever span is current (the HTTP request's,
 * or a command's). A thrown error marks the span failed and is rethrown unchanged.
 */
export function inSpan<T>(name: string, work: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (activeTracing() === undefined) return work();
  return tracer.startActiveSpan(name, attributes ? { attributes } : {}, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}
