import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';

/** What a worker needs for tracing: the plugin to register, and a flush-and-stop for shutdown. */
export interface Tracing {
  plugin: OpenTelemetryPlugin;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry tracing through Temporal's interceptors, exported by OTLP/HTTP to `endpoint` (`…/v1/traces`):
 * a span for each workflow run with its StartActivity children, and a RunActivity span for each activity execution.
 * Known gap: the RunActivity spans are not yet parented to the workflow's trace (the trace context the workflow
 * writes into activity headers does not arrive); see the README.
 */
export function createTracing(endpoint: string, serviceName = 'durable-react-agent-worker'): Tracing {
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = new BatchSpanProcessor(
    new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
    {
      scheduledDelayMillis: 1000,
    },
  );
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  // Registers the W3C trace-context propagator too, which the activity side uses to read its parent from headers.
  provider.register();
  const plugin = new OpenTelemetryPlugin({
    resource,
    spanProcessor,
    tracer: provider.getTracer('durable-react-agent'),
  });
  return { plugin, shutdown: () => provider.shutdown() };
}
