import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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
