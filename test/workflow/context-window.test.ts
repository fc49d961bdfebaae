import { describe, expect, it } from 'vitest';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

const harness = useHarness();

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);
/** Prompt tokens as the scripted model counts them (4 characters a token). */
const promptTokens = (request: RecordedRequest) => Math.ceil(JSON.stringify(request.messages).length / 4);

/**
 * A model with a real context window: like vLLM or OpenAI, it refuses a prompt over the window with HTTP 400 and
 * says how large the window is. Otherwise it reads five 6 KiB texts (about 1,500 tokens each), then answers.
 */
function modelWithWindow(window: number, thinks: ScriptedResponder, says = overWindowLikeVllm): ScriptedResponder {
  return (request, index) => {
    const tokens = promptTokens(request);
    if (tokens > window) return says(window, tokens);
    if (isSummaryRequest(request)) return { content: 'SUMMARY: read the earlier bulk texts; all were filler.' };
    return thinks(request, index);
  };
}

/** How OpenAI, vLLM and most servers refuse a prompt over the window: HTTP 400, the window in the message. */
function overWindowLikeVllm(window: number, tokens: number): ScriptedTurn {
  return {
    status: 400,
    errorMessage: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens.`,
  };
}

/** How Gemini's OpenAI-compatible endpoint refuses it: a JSON array of Google error objects (issue 44). */
function overWindowLikeGemini(window: number, tokens: number): ScriptedTurn {
  const message = `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`;
  return { raw: { kind: 'json', status: 400, body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] } };
}

/** Reads five texts (each call new arguments, so no stall), then answers; counts only the replies it gave. */
function readFive(): ScriptedResponder {
  let read = 0;
  return () => {
    if (read >= 5) return { answer: 'All five texts were filler.' };
    read += 1;
    return {
      thought: `Text ${read} of 5 is next; I read it to see what it holds.`,
      toolCalls: [{ name: 'bulk_text', args: { kb: 6, fill: 'abcde'[read - 1] ?? 'z' } }],
    };
  };
}

/** A run with no contextWindow assumes 32,768 tokens until the model refuses and says 4,000; it compacts and goes on. */
async function expectLearnsWindow(
  on: Pick<typeof harness, 'start'>,
  says = overWindowLikeVllm,
  words = 'maximum context length is 4000 tokens',
): Promise<void> {
  const run = await on.start(modelWithWindow(4000, readFive(), says), 'read the bulk texts', {
    limits: { maxIterations: 12 },
  });
  const result = await run.result();

  expect(result.terminationReason).toBe('success');
  expect(result.finalAnswer).toBe('All five texts were filler.');
  const refusals = result.trace.errorHistory.filter((entry) => entry.kind === 'model_error');
  expect(refusals).toHaveLength(1);
  expect(refusals[0]?.message).toContain(words);
  expect(result.trace.summary).toContain('SUMMARY');
}

describe('context window', () => {
  it('compacts before a prompt would overflow the configured window, and the run goes on', async () => {
    const run = await harness.start(modelWithWindow(4000, readFive()), 'read the bulk texts', {
      modelSettings: { contextWindow: 4000 },
      limits: { maxIterations: 12 },
    });
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('All five texts were filler.');
    expect(result.trace.summary).toContain('SUMMARY');
    // Compacted before calling: the model never had to refuse a prompt.
    expect(result.trace.errorHistory.filter((entry) => entry.kind === 'model_error')).toEqual([]);
    const thinking = harness.model.requests(run.modelName).filter((request) => !isSummaryRequest(request));
    for (const request of thinking) expect(promptTokens(request)).toBeLessThanOrEqual(4000);
  });

  it("learns the window from the provider's context-length error, compacts and goes on", async () => {
    await expectLearnsWindow(harness);
  });

  it("learns it from Gemini's array-shaped error as well (issue 44)", async () => {
    await expectLearnsWindow(harness, overWindowLikeGemini, 'exceeds the maximum number of tokens allowed (4000)');
  });

  it('stops with token_budget, not a failed run, when even a compacted prompt cannot fit', async () => {
    const run = await harness.start(
      modelWithWindow(1000, () => ({ answer: 'never reached' })),
      `Summarise this: ${'a long pasted document. '.repeat(400)}`,
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('token_budget');
    expect(result.trace.terminationDetail).toContain("does not fit the model's context window");
    expect(result.trace.forcedFinalAnswer?.status).toBe('skipped');
  });
});

describe("context window with the worker's modelCalls.local", () => {
  // A local activity's failure reaches the workflow unwrapped: the refusal must still be read as one.
  const local = useHarness({ modelCalls: { local: true } });

  it("learns the window from a local call's context-length error, compacts and goes on", async () => {
    await expectLearnsWindow(local);
  });
});
