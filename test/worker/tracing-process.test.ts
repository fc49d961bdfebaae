import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { CRITIC_MARKER } from '../../src/shared/critic';
import { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from '../../src/testing/scripted-model';
import { killWorkerProcesses, startWorkerProcess } from '../support/worker-process';

/** A span as OTLP/HTTP JSON carries it (hex ids, attribute values wrapped by type). */
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind?: number;
  status?: { code?: number; message?: string };
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

/** OTLP's enum values, as the JSON encoding writes them. */
const SPAN_KIND_CLIENT = 3;
const STATUS_CODE_ERROR = 2;

/** A loopback OTLP/HTTP receiver that keeps every span posted to /v1/traces. */
async function startCollector(): Promise<{ server: Server; endpoint: string; spans: () => OtlpSpan[] }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const spans = () =>
    bodies.flatMap((body) => {
      const parsed = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
      return (parsed.resourceSpans ?? []).flatMap((resource) =>
        (resource.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []),
      );
    });
  return { server, endpoint: `http://127.0.0.1:${port}`, spans };
}

/** The value of a span attribute, whatever its OTLP type (int64 may arrive as a string). */
function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((entry) => entry.key === key)?.value;
  if (value === undefined) return undefined;
  if ('intValue' in value) return Number(value.intValue);
  return Object.values(value)[0];
}

let model: ScriptedModelServer;

beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  killWorkerProcesses();
  await model?.close();
});

describe('the worker process with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it(
    'exports one trace per run: workflow, activities and model calls with their token counts, by OTLP/HTTP',
    { timeout: 90_000 },
    async () => {
      const collector = await startCollector();
      try {
        const taskQueue = `traced-${randomUUID()}`;
        // Run-ahead off: the read-only calculator runs as its own activity, which gets a span of its own.
        const worker = await startWorkerProcess(taskQueue, model.baseURL, {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          WORKER_RUN_AHEAD: 'false',
        });
        const agentTurns: ScriptedTurn[] = [
          { status: 500, errorMessage: 'overloaded' }, // a failed model call, retried by Temporal
          {
            thought: 'Exact arithmetic needs the calculator tool.',
            toolCalls: [{ name: 'calculator', args: { expression: '5+5' } }],
            usage: { promptTokens: 111, completionTokens: 22 },
          },
          { answer: '10', usage: { promptTokens: 133, completionTokens: 4 } },
        ];
        const verdict = JSON.stringify({ decision: 'CONTINUE', reasoning: 'The sum is known.', confidence: 0.9 });
        model.script('traced-run', (request) =>
          String(request.messages[0]?.content).startsWith(CRITIC_MARKER)
            ? { content: verdict, usage: { promptTokens: 77, completionTokens: 9 } }
            : (agentTurns.shift() ?? { status: 400, errorMessage: 'script exhausted' }),
        );
        const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue });
        const run = await agents.start('q', { model: 'traced-run', critic: true });
        expect((await run.result()).finalAnswer).toBe('10');
        await agents.close();
        worker.child.kill('SIGTERM'); // shutdown flushes the batched spans
        expect(await worker.exited).toBe(0);

        const spans = collector.spans();
        const byId = new Map(spans.map((span) => [span.spanId, span]));
        const names = spans.map((span) => span.name);
        expect(names).toContain('RunActivity:callModel');
        expect(names).toContain('RunActivity:runTool');
        expect(names).toContain('RunActivity:critique');
        const workflowSpan = spans.find((span) => span.name === 'RunWorkflow:reactAgentWorkflow');
        expect(workflowSpan).toBeDefined();
        const { traceId } = workflowSpan!;

        // The workflow's span parents the activities it scheduled...
        const scheduled = spans.filter((span) => span.name.startsWith('StartActivity:'));
        expect(scheduled.length).toBeGreaterThanOrEqual(4);
        for (const span of scheduled) expect(span).toMatchObject({ traceId, parentSpanId: workflowSpan!.spanId });
        // ...and each execution on the worker is a child of its StartActivity span, in the same trace.
        const executed = spans.filter((span) => span.name.startsWith('RunActivity:'));
        expect(executed.length).toBeGreaterThanOrEqual(5); // the failed callModel attempt has one too
        for (const span of executed) {
          expect(span.traceId).toBe(traceId);
          const parent = byId.get(span.parentSpanId ?? '');
          expect(parent?.name).toBe(span.name.replace('RunActivity:', 'StartActivity:'));
        }

        // Every model call is a GenAI client span under its activity, with the usage the endpoint reported.
        const calls = spans.filter((span) => span.name === 'chat traced-run');
        for (const span of calls) {
          expect(span.traceId).toBe(traceId);
          expect(['RunActivity:callModel', 'RunActivity:critique']).toContain(byId.get(span.parentSpanId ?? '')?.name);
          expect(span.kind).toBe(SPAN_KIND_CLIENT);
          expect(attribute(span, 'gen_ai.system')).toBe('openai');
          expect(attribute(span, 'gen_ai.operation.name')).toBe('chat');
          expect(attribute(span, 'gen_ai.request.model')).toBe('traced-run');
        }
        const usage = (span: OtlpSpan) => [
          byId.get(span.parentSpanId ?? '')?.name,
          attribute(span, 'gen_ai.usage.input_tokens'),
          attribute(span, 'gen_ai.usage.output_tokens'),
        ];
        const succeeded = calls.filter((span) => span.status?.code !== STATUS_CODE_ERROR);
        expect(succeeded.map(usage)).toEqual(
          expect.arrayContaining([
            ['RunActivity:callModel', 111, 22],
            ['RunActivity:callModel', 133, 4],
            ['RunActivity:critique', 77, 9],
          ]),
        );
        expect(succeeded).toHaveLength(3);
        // The call the endpoint refused is an error span, typed as the activity's failure is.
        const failed = calls.filter((span) => span.status?.code === STATUS_CODE_ERROR);
        expect(failed).toHaveLength(1);
        expect(attribute(failed[0]!, 'error.type')).toBeTypeOf('string');
        expect(attribute(failed[0]!, 'gen_ai.usage.input_tokens')).toBeUndefined();
      } finally {
        collector.server.close();
      }
    },
  );
});
