import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/shared/agent-config';
import { PERSONALITIES, type Personality, type ScriptedTurn } from '../../src/testing';
import { useHarness } from '../support/harness';

/*
 * The whole loop, with the default config, against the shapes real servers reply in: the same script played as
 * OpenAI's GPT-4o (no text beside calls), vLLM/DeepSeek (reasoning in its own field), Qwen3 through Ollama or
 * llama.cpp (<think> blocks) and a small model in text mode (sloppy formats). Each must finish with the right answer.
 */

const harness = useHarness();

const SCRIPT: ScriptedTurn[] = [
  {
    thought: 'The task needs 17 * 23 exactly, and mental arithmetic is error-prone, so I compute it.',
    toolCalls: [{ name: 'calculator', args: { expression: '17 * 23' } }],
  },
  {
    thought: 'Now the length of the word "durable", which the text tool counts exactly.',
    toolCalls: [{ name: 'text', args: { operation: 'length', text: 'durable' } }],
  },
  { thought: 'Both results are in: 391 and 7.', answer: '17 * 23 = 391, and "durable" has 7 characters.' },
];

async function play(personality: Personality, config: AgentConfig = {}) {
  const modelName = `persona-${personality}-${randomUUID()}`;
  harness.model.script(modelName, SCRIPT, { personality });
  const textMode = personality === 'sloppy-text' ? { modelSettings: { toolCalling: 'text' as const } } : {};
  const handle = await harness.agents.start('What is 17 * 23, and how long is "durable"?', {
    ...textMode,
    ...config,
    model: modelName,
  });
  return { result: await handle.result(), modelName, handle };
}

describe('personalities of real servers, default config', () => {
  it.each(PERSONALITIES)('%s: the run succeeds with every tool call made and a clean answer', async (personality) => {
    const { result } = await play(personality);

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('17 * 23 = 391, and "durable" has 7 characters.');
    const calls = result.trace.steps.flatMap((step) => (step.action.type === 'tool_call' ? [step] : []));
    expect(calls.map((step) => step.observationData)).toEqual([
      { expression: '17 * 23', result: 391 },
      { operation: 'length', result: 7 },
    ]);
    // Nothing was sent back: no refused thought, no unreadable reply.
    expect(result.trace.errorHistory).toEqual([]);
    expect(result.trace.totalIterations).toBe(3);
    for (const step of result.trace.steps) expect(`${step.thought}`).not.toMatch(/<\/?think>/);
  });

  it.each(['reasoning-field', 'think-tags'] as const)(
    '%s: the reasoning is the thought of each step, streamed or not',
    async (personality) => {
      for (const stream of [false, true]) {
        const { result } = await play(personality, { modelSettings: { stream } });
        expect(result.terminationReason).toBe('success');
        expect(result.trace.steps[0]?.thought).toBe(SCRIPT[0]?.thought);
        expect(result.trace.steps[1]?.thought).toBe(SCRIPT[1]?.thought);
      }
    },
  );

  it('reasoning-field: a phrase mused about in the reasoning neither stops the run nor goes back to the model', async () => {
    const modelName = `persona-phrase-${randomUUID()}`;
    harness.model.script(
      modelName,
      [
        {
          thought: 'I must not say TASK COMPLETE before the sum is known, so I compute it first.',
          toolCalls: [{ name: 'calculator', args: { expression: '2 + 2' } }],
        },
        { answer: '2 + 2 = 4.' },
      ],
      { personality: 'reasoning-field' },
    );
    const handle = await harness.agents.start('What is 2 + 2?', {
      model: modelName,
      stopWhen: [{ type: 'thought_contains', text: 'TASK COMPLETE', outcome: 'success' }],
    });
    const result = await handle.result();

    expect(result.finalAnswer).toBe('2 + 2 = 4.');
    expect(result.trace.steps[0]?.action.type).toBe('tool_call');
    // The trace keeps the reasoning as the step's thought; the next prompt carries only what the model wrote.
    expect(result.trace.steps[0]?.thought).toContain('TASK COMPLETE');
    const second = harness.model.requests(modelName)[1];
    expect(JSON.stringify(second?.messages)).not.toContain('TASK COMPLETE');
  });

  it('reasoning-field: a forced answer that is only reasoning does not become the answer', async () => {
    const modelName = `persona-forced-${randomUUID()}`;
    const call = {
      thought: 'The secret plan is to keep adding; I add one more time.',
      toolCalls: [{ name: 'calculator', args: { expression: '1 + 1' } }],
    };
    harness.model.script(modelName, [call, call], { personality: 'reasoning-field' });
    const handle = await harness.agents.start('Keep adding.', { model: modelName, limits: { maxIterations: 1 } });
    const result = await handle.result();

    expect(result.terminationReason).toBe('max_iterations');
    expect(result.trace.forcedFinalAnswer?.status).toBe('given');
    expect(result.finalAnswer).toBe(
      '(The model gave no final answer. Why the run stopped: reached the limit of 1 iterations.)',
    );
    expect(result.finalAnswer).not.toContain('secret plan');
  });

  it('no-text-calls: calls without a thought run under the default, and are refused in strict mode', async () => {
    const lenient = await play('no-text-calls');
    expect(lenient.result.trace.steps[0]?.thought).toBe('');
    expect(lenient.result.trace.rejectedThoughts).toBe(0);

    // thoughts.require: true keeps the old rule: every call without a thought is sent back, so no tool ever runs and
    // the answer comes without the work behind it.
    const strict = await play('no-text-calls', { thoughts: { require: true } });
    expect(strict.result.trace.rejectedThoughts).toBe(2);
    expect(strict.result.trace.steps.filter((step) => step.action.type === 'tool_call')).toEqual([]);
  });
});
