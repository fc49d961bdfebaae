/**
 * The one workload every contender runs, so their figures compare: an agent of N steps, where a step is one model
 * call that asks for one tool call, and the tool's answer. The model (the scripted OpenAI-compatible server, on
 * loopback) answers at once; the tool does nothing. N steps therefore cost N + 1 model calls and N tool calls.
 */
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ScriptedResponder, ScriptedTurn } from '../src/testing/scripted-model';

/**
 * The benchmark tools. `noop` is a fast read-only tool with the defaults (it runs ahead inside the model call),
 * `noop_effect` a fast tool that may have side effects (a local activity of its own once the workflow admits the
 * call), `noop_remote` is declared `local: false` (a remote activity), `guarded` needs approval.
 */
export const BENCH_TOOLS = ['noop', 'noop_effect', 'noop_remote', 'guarded'] as const;
export type BenchTool = (typeof BENCH_TOOLS)[number];

export const NOOP_DESCRIPTION = 'Does nothing and answers "ok". The benchmark calls it once per step.';

/** The no-op tool as the loops without a tool registry (the lower bound, the SDK floor) offer it to the model. */
export const NOOP_TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'noop',
      description: NOOP_DESCRIPTION,
      parameters: { type: 'object', properties: { step: { type: 'integer' } } },
    },
  },
];

/** The no-op tool's answers to the calls in an assistant message (none: the message was the final answer). */
export function noopToolAnswers(message: ChatCompletionMessage): ChatCompletionMessageParam[] {
  return (message.tool_calls ?? []).flatMap((call) => {
    if (call.type !== 'function') return [];
    JSON.parse(call.function.arguments);
    return [{ role: 'tool' as const, tool_call_id: call.id, content: 'ok' }];
  });
}

/** The task every contender's agent is given. */
export const BENCH_TASK = 'Call the no-op tool until you are done.';
/** The system prompt of the contenders that bring none of their own (ours writes its own from its config). */
export const BENCH_SYSTEM_PROMPT = 'You are a ReAct agent. Think, call tools, then answer.';

/** The opening messages of the loops without a prompt builder (the lower bound, the SDK floor). */
export function openingMessages(): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: BENCH_SYSTEM_PROMPT },
    { role: 'user', content: BENCH_TASK },
  ];
}

/**
 * The model name carries the script, so any number of concurrent runs each follow their own: bench.<tool>.<steps>.<id>,
 * and `.stream` after the ID for a model that streams its text slowly (see STREAMED).
 */
export function benchModel(tool: BenchTool, steps: number, id: string | number): string {
  return `bench.${tool}.${steps}.${id}`;
}

/**
 * A streamed model (a name ending in `.stream`) sends each reply's text in 20 chunks 50 ms apart, about a second per
 * call, as a real model streams: what a run that streams sends to its workflow depends on how long text keeps coming.
 */
const STREAMED = { streamChunks: 20, chunkDelayMs: 50 } as const;

/**
 * How a benchmark model's replies follow: `stream` streams them; `steady` takes each reply from the tool results in the
 * request instead of the count of requests, so one model serves run after run, as a deployment's model does (P8 needs
 * a worker that has seen its model answer before).
 */
type Pace = 'stream' | 'steady' | undefined;

function turns(tool: string, steps: number, pace: Pace): ScriptedResponder {
  const streamed = pace === 'stream' ? STREAMED : {};
  return (request, count): ScriptedTurn => {
    const index = pace === 'steady' ? request.messages.filter((message) => message.role === 'tool').length : count;
    if (index < steps)
      return {
        thought: `Step ${index + 1}: call the tool once more.`,
        toolCalls: [{ name: tool, args: { step: index + 1 } }],
        ...streamed,
      };
    if (index === steps) return { answer: `Finished ${steps} steps.`, ...streamed };
    // A model name used twice would hand the second run an instant answer and a flattering figure: fail it instead.
    return { status: 400, errorMessage: 'this benchmark model already finished its script (model name reused)' };
  };
}

/** The scripted model's `scriptFor`: derives the script from a benchmark model name. */
export function scriptForBenchModel(model: string): ScriptedResponder | undefined {
  const [prefix, tool, steps, , pace] = model.split('.');
  if (prefix !== 'bench' || !BENCH_TOOLS.includes(tool as BenchTool) || !Number.isInteger(Number(steps)))
    return undefined;
  return turns(tool as string, Number(steps), pace === 'stream' || pace === 'steady' ? pace : undefined);
}

/** Percentile of a sample (nearest rank), for latency figures. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** Runs `work` for 0..count-1 with at most `limit` in flight. */
export async function pool(count: number, limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}
