import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../../src/shared/agent-config';
import { mistralCallId, type Personality } from '../../src/testing/personalities';
import type { RecordedRequest, ScriptedTurn } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/worker/tools/define-tool';
import { AgentRunError } from '../../src/client';
import { ALL_FIXTURES } from '../fixtures/compat';
import type { CompatFixture } from '../fixtures/compat/types';
import { useHarness } from '../support/harness';

/*
 * Replies exactly as real servers send them (the compatibility fixtures), through the whole loop on the dev server
 * with the default config: the call runs, the run answers; a reply cut off is told back; a page instead of a
 * completion fails the run at once, without paying for retries.
 */

/** A tool whose failure text is the model's own, retried once: the way a lone surrogate reached a failure message. */
const echoFailure = defineTool({
  name: 'echo_failure',
  description: 'Fails with the given text, retried once.',
  category: 'test',
  schema: z.object({ text: z.string() }),
  retry: { maximumAttempts: 2, initialInterval: '100ms' },
  handler: ({ text }) => {
    throw new Error(`failed: ${text}`);
  },
});

const harness = useHarness({ tools: [echoFailure] });

function fixture(id: string): CompatFixture {
  const found = ALL_FIXTURES.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no compatibility fixture ${id}`);
  return found;
}

describe('real servers’ replies through the loop', () => {
  it.each([
    'openai-tool-call-content-null',
    'llamacpp-tool-arguments-object',
    'tgi-tool-arguments-object',
    'deepseek-thinking-mode-tool-call',
    'groq-reasoning-parsed-tool-call',
    'vllm-stream-reasoning-then-tool-call',
    'lmstudio-stream-tool-call-finish-stop',
  ])('%s: the calculator call runs and the run answers', async (id) => {
    const { response, expect: wanted } = fixture(id);
    const stream = response.kind === 'sse';
    const run = await harness.start([{ raw: response }, { answer: 'Done.' }], 'compute it', {
      modelSettings: { stream },
    });
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    const [step] = result.trace.steps;
    const call = wanted.type === 'tool_calls' ? wanted.calls[0] : undefined;
    expect(step?.action).toMatchObject({ type: 'tool_call', tool: 'calculator', args: call?.args });
    expect(step?.isError).toBe(false);
    expect(result.trace.errorHistory).toEqual([]);
  });

  it('a tool call cut off at the token limit is told back, and the run goes on', async () => {
    const run = await harness.start(
      [{ raw: fixture('openai-length-truncated-tool-arguments').response }, { answer: 'Done.' }],
      'compute it',
    );
    const result = await run.result();

    expect(result.finalAnswer).toBe('Done.');
    expect(result.trace.errorHistory.map((entry) => entry.message)).toEqual([
      'Your reply was cut off at the token limit; reply more briefly.',
    ]);
  });

  it('an HTML page instead of a completion fails the run at once, naming what to check', async () => {
    const run = await harness.start([{ raw: fixture('proxy-html-page-200').response }], 'compute it');
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;

    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('ModelBadResponseError');
    expect(error.message).toContain('Check OPENAI_BASE_URL');
    // Not retried: the model was asked once.
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
  });

  it('arguments nested 10,000 levels deep are told back at once, not retried as a paid call', async () => {
    const deep = `{"expression":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const run = await harness.start(
      [
        {
          thought: 'I send the nested list to the calculator.',
          toolCalls: [{ name: 'calculator', rawArguments: deep }],
        },
        { answer: 'Done.' },
      ],
      'compute it',
    );
    const result = await run.result();

    expect(result.finalAnswer).toBe('Done.');
    expect(result.trace.steps[0]?.observation).toContain('the arguments nest 10001 levels deep; at most 64 are read');
    expect(harness.model.requests(run.modelName)).toHaveLength(2);
  });

  it('a lone surrogate in a retried tool failure leaves the worker running (N3)', async () => {
    const run = await harness.start(
      [
        {
          thought: 'I pass the broken text on to the tool to see what it says.',
          toolCalls: [{ name: 'echo_failure', rawArguments: '{"text":"broken \\ud800 text"}' }],
        },
        { answer: 'Done.' },
      ],
      'break it',
    );
    const result = await run.result();

    expect(result.finalAnswer).toBe('Done.');
    // The first attempt's failure reached the server (the worker used to die encoding it); the second attempt, the
    // last, became the observation.
    expect(result.trace.steps[0]?.observation).toContain('failed: broken');
  });
});

/** Starts a run whose model replies as `personality`'s server does. */
async function startAs(personality: Personality, turns: ScriptedTurn[], query: string, config: AgentConfig = {}) {
  const modelName = `${personality}-${randomUUID()}`;
  harness.model.script(modelName, turns, { personality });
  const handle = await harness.agents.start(query, { ...config, model: modelName });
  return { ...handle, modelName };
}

/** The IDs a request sends back: its assistant messages' calls, and its tool results'. */
function sentIds(request: RecordedRequest | undefined): { calls: string[]; results: string[] } {
  const messages = request?.messages ?? [];
  const calls = messages.flatMap((message) =>
    Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ id: string }>).map((call) => call.id) : [],
  );
  const results = messages.flatMap((message) => (message.role === 'tool' ? [String(message.tool_call_id)] : []));
  return { calls, results };
}

const computeTwice: ScriptedTurn[] = [
  { thought: 'I multiply first.', toolCalls: [{ name: 'calculator', args: { expression: '17*23' } }] },
  { thought: 'Then I add one.', toolCalls: [{ name: 'calculator', args: { expression: '391+1' } }] },
  { answer: '392' },
];

describe('call IDs go back to the server as it gave them (issue 44)', () => {
  it('a Mistral endpoint, which refuses any other ID, runs a tool run to its answer', async () => {
    const run = await startAs('mistral', computeTwice, 'compute it');
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('392');
    const requests = harness.model.requests(run.modelName);
    expect(requests).toHaveLength(3);
    // Exactly the IDs the server issued, in the calls and in their results.
    const first = mistralCallId(0, 0);
    const second = mistralCallId(1, 0);
    expect(sentIds(requests[1])).toEqual({ calls: [first], results: [first] });
    expect(sentIds(requests[2])).toEqual({ calls: [first, second], results: [first, second] });
    // The run's own IDs are unchanged: approvals and history still say c1-1.
    expect(result.trace.steps[0]?.action).toMatchObject({ callId: 'c1-1', serverCallId: first });
  });

  it('a call the server gave no ID goes back with nine letters and digits, the same in every prompt', async () => {
    const run = await startAs(
      'mistral',
      [
        {
          thought: 'I compute both sums at once.',
          toolCalls: [
            { name: 'calculator', args: { expression: '1+1' }, id: '' },
            { name: 'calculator', args: { expression: '2+2' }, id: '' },
          ],
        },
        {
          thought: 'One more sum to compute.',
          toolCalls: [{ name: 'calculator', args: { expression: '3+3' }, id: '' }],
        },
        { answer: 'Done.' },
      ],
      'compute it',
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    const [, second, third] = harness.model.requests(run.modelName);
    const sent = sentIds(second).calls;
    expect(sent).toHaveLength(2);
    for (const id of sent) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(sent).size).toBe(2);
    // The next prompt sends the same made-up IDs again, and one of its own for the new call.
    const again = sentIds(third).calls;
    expect(again.slice(0, 2)).toEqual(sent);
    expect(again[2]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(again).size).toBe(3);
  });

  it("an ID a server repeats across replies is sent once; the repeat goes back under one of the run's", async () => {
    const run = await harness.start(
      [
        {
          thought: 'I compute the first sum.',
          toolCalls: [{ name: 'calculator', args: { expression: '1+1' }, id: 'call_0' }],
        },
        {
          thought: 'I compute the second sum.',
          toolCalls: [{ name: 'calculator', args: { expression: '2+2' }, id: 'call_0' }],
        },
        { answer: 'Done.' },
      ],
      'compute it',
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    const { calls, results } = sentIds(harness.model.requests(run.modelName)[2]);
    expect(calls[0]).toBe('call_0');
    expect(calls[1]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(results).toEqual(calls);
  });
});

describe('refusals end the run with their words (issue 44)', () => {
  it.each([false, true])('a refusal (streamed: %s) ends the run at once, the refusal as its answer', async (stream) => {
    const refusal = "I'm sorry, I can't help with that.";
    const run = await harness.start([{ refusal }, { answer: 'never asked' }], 'do the forbidden thing', {
      modelSettings: { stream },
    });
    const result = await run.result();

    expect(result.terminationReason).toBe('failure');
    expect(result.finalAnswer).toBe(refusal);
    expect(result.trace.terminationDetail).toContain(`the model refused: ${refusal}`);
    // Not argued with: one call, no feedback, no forced answer.
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
    expect(result.trace.errorHistory).toEqual([]);
  });

  it("Azure's content filter, which lets nothing through, ends the run saying so", async () => {
    const run = await harness.start(
      [{ raw: fixture('azure-content-filter-empty-reply').response }, { answer: 'never asked' }],
      'compute it',
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('failure');
    expect(result.finalAnswer).toContain('content filter');
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
  });
});

describe('calls written as text run as calls (issue 44)', () => {
  it.each([
    'vllm-hermes-tool-call-in-content-without-parser',
    'ollama-llama-bare-json-call-in-content',
    'ollama-llama-python-tag-call-in-content',
    'mistral-tool-calls-marker-in-content',
    'mistral-v11-tool-calls-args-in-content',
  ])('%s: the written call runs, recorded as a call, and the run answers', async (id) => {
    const { expect: wanted, response } = fixture(id);
    const run = await harness.start([{ raw: response }, { answer: 'Done.' }], 'compute it');
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Done.');
    const calls = wanted.type === 'tool_calls' ? wanted.calls : [];
    expect(result.trace.steps.filter((step) => step.action.type === 'tool_call').map((step) => step.action)).toEqual(
      calls.map((call, index) => ({ type: 'tool_call', tool: call.tool, args: call.args, callId: `c1-${index + 1}` })),
    );
    expect(result.trace.steps.every((step) => step.isError !== true)).toBe(true);
    // Sent back as native calls, so the next turn reads as a tool conversation.
    expect(sentIds(harness.model.requests(run.modelName)[1]).calls).toHaveLength(calls.length);
  });

  it('a server without a tool parser, in all three written forms, serves a whole tool run', async () => {
    const run = await startAs(
      'unparsed-calls',
      [
        {
          thought: 'I multiply the two numbers first.',
          toolCalls: [{ name: 'calculator', args: { expression: '17*23' } }],
        },
        {
          thought: 'Then I add one to the product.',
          toolCalls: [{ name: 'calculator', args: { expression: '391+1' } }],
        },
        { thought: 'Finally I halve that number.', toolCalls: [{ name: 'calculator', args: { expression: '392/2' } }] },
        { answer: '196' },
      ],
      'compute it',
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('196');
    const steps = result.trace.steps.filter((step) => step.action.type === 'tool_call');
    expect(steps.map((step) => (step.observationData as { result: number }).result)).toEqual([391, 392, 196]);
    expect(result.trace.errorHistory).toEqual([]);
    // The text around a <tool_call> block and before [TOOL_CALLS] is the thought; Llama's bare JSON has none.
    expect(steps.map((step) => step.thought)).toEqual([
      'I multiply the two numbers first.',
      '',
      'Finally I halve that number.',
    ]);
  });

  it('a written call that cannot be read is told back as asking for a native call, never taken as the answer', async () => {
    const run = await harness.start(
      [
        { content: '<tool_call>\n{"name": "calculator", "arguments": {"expression": \n</tool_call>' },
        {
          thought: 'Now I call the calculator natively.',
          toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }],
        },
        { answer: '4' },
      ],
      'compute it',
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('4');
    expect(result.trace.errorHistory.map((entry) => entry.message)).toEqual([
      expect.stringContaining('native tool call') as unknown as string,
    ]);
  });
});

describe('errors in any shape keep their words (issue 44)', () => {
  it("a FastAPI server's validation error fails the run at once with its words, not '(no body)'", async () => {
    const run = await harness.start([{ raw: fixture('fastapi-validation-422').response }], 'compute it');
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;

    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('ModelBadRequestError');
    expect(error.message).toContain('body.messages.1.content: Field required');
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
  });
});
