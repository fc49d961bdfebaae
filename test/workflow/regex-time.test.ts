import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../../src/worker/tools/define-tool';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Red team round 2, N2/N6: patterns the worker runs on model-controlled text. `^a*a*…a*$` has no nested repeat, so
 * the shape check lets it through, yet it backtracks polynomially: on 32 a's and a "!" a plain V8 regex runs for
 * hours. The worker's linear-time fallback must make each of these runs finish at once.
 */
const POLYNOMIAL = '^a*a*a*a*a*a*a*a*a*a*a*a*a*a*$';
const HOSTILE = `${'a'.repeat(32)}!`;

// A plain object, not defineTool: the registry must apply the same pattern checks to tools built any way.
const guarded: AnyToolDefinition = {
  name: 'guarded',
  description: 'Runs code; asks first when the code matches a pattern.',
  category: 'test',
  schema: z.object({ code: z.string() }),
  confirm: {
    anyOf: [
      { when: 'matches', arg: 'code', pattern: POLYNOMIAL },
      { when: 'matches', arg: 'code', pattern: '^\\s*drop', flags: 'i' },
    ],
  },
  handler: ({ code }: { code: string }) => `ran ${code.length} characters`,
} as AnyToolDefinition;

const harness = useHarness({ tools: [guarded] });

describe('patterns on model-controlled text run in linear time (N2/N6)', () => {
  it('a polynomial confirmation pattern meets a hostile argument: the workflow decides at once', async () => {
    const run = await harness.start([
      { toolCalls: [{ name: 'guarded', args: { code: HOSTILE } }] },
      { content: 'done' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('done');
    expect(result.trace.steps[0]?.observation).toContain('ran 33 characters');
  }, 60_000);

  it('a case-insensitive rule still asks, spelled out for the linear engine', async () => {
    const run = await harness.start([
      { toolCalls: [{ name: 'guarded', args: { code: ' DROP TABLE users' } }] },
      { content: 'done' },
    ]);
    const pending = await waitForPending(harness, run.workflowId);
    expect(pending.approvals[0]?.tool).toBe('guarded');
    await harness.agents.handle(run.workflowId).reject(pending.approvals[0]!.callId, 'no');
    expect((await run.result()).finalAnswer).toBe('done');
  }, 60_000);

  it('a polynomial output-schema pattern meets a hostile answer: the check answers and the model tries again', async () => {
    const run = await harness.start(
      [
        { toolCalls: [{ name: 'final_answer', args: { answer: { code: HOSTILE } } }] },
        { toolCalls: [{ name: 'final_answer', args: { answer: { code: 'aaa' } } }] },
      ],
      'answer',
      {
        output: {
          schema: {
            type: 'object',
            properties: { code: { type: 'string', pattern: POLYNOMIAL } },
            required: ['code'],
          },
        },
      },
    );
    const result = await run.result();
    expect(result.output).toEqual({ code: 'aaa' });
    expect(result.trace.errorHistory).toEqual([expect.objectContaining({ kind: 'invalid_output' })]);
  }, 60_000);
});
