import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { TelemetryConfig } from '../config.js';

export interface WorkerTracing {
  /** Temporal's OpenTelemetry interceptors: a span per workflow run, activity scheduled and activity run. */
  plugin: OpenTelemetryPlugin;
  /** Sends the spans still buffered and unregisters; the worker calls it after its workers have stopped. */
  shutdown(): Promise<void>;
  /** Where spans go, for the start-up line. */
  url: string;
}

/**
 * Starts exporting traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; otherwise returns `undefined`
 * and no provider is registered, so every span codeloop or the SDK asks for is OpenTelemetry's no-op.
 *
 * The provider is registered globally with an async-local context, so a span started inside an activity (the model
 * call's) is a child of that activity's span. The exporters read the OpenTelemetry SDK's own variables for what
 * codeloop does not set (`OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `_COMPRESSION`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_BSP_*`).
 */
export function startTracing(traces: TelemetryConfig['traces'], hostId: string): WorkerTracing | undefined {
  if (!traces) return undefined;
  // The spec's rule for OTEL_EXPORTER_OTLP_ENDPOINT: the signal's path is appended to the base URL.
  const url = new URL('v1/traces', traces.endpoint.endsWith('/') ? traces.endpoint : `${traces.endpoint}/`).href;
  const exporter = traces.protocol === 'http/json' ? new JsonTraceExporter({ url }) : new ProtobufTraceExporter({ url });
  const resource = Resource.default()
    .merge(envDetectorSync.detect())
    .merge(new Resource({ 'service.name': traces.serviceName, 'service.instance.id': hostId }));
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  const shutdown = async () => {
    await provider.shutdown();
    for (const api of [trace, context, propagation]) api.disable();
  };
  return { plugin: new OpenTelemetryPlugin({ resource, spanProcessor }), shutdown, url };
}
