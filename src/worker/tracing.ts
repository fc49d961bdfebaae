import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { AsyncLocalStorageContextManager } from './tracing-context';

/** What a worker needs for tracing: the plugin to register, and a flush-and-stop for shutdown. */
export interface Tracing {
  plugin: OpenTelemetryPlugin;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry tracing through Temporal's interceptors, exported by OTLP/HTTP to `endpoint` (`…/v1/traces`): one
 * trace per run, with a span for the workflow run, a StartActivity child for each activity it schedules, a
 * RunActivity span for each execution under its StartActivity, and a `chat <model>` span for each model call.
 * The workflow bundle must include the interceptors' workflow modules, so a worker with tracing bundles at start.
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
  // The W3C propagator reads the workflow's trace context from the activity headers; the context manager makes it the
  // parent of the RunActivity span (without one, `context.with` does nothing and each activity starts a new trace)
  // and makes that span the parent of the model-call spans started inside the activity.
  provider.register({ contextManager: new AsyncLocalStorageContextManager() });
  const plugin = new OpenTelemetryPlugin({
    resource,
    spanProcessor,
    tracer: provider.getTracer('durable-react-agent'),
  });
  return { plugin, shutdown: () => provider.shutdown() };
}
