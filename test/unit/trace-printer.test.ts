import { describe, expect, it } from 'vitest';
import { formatStep } from '../../src/client/trace-printer';
import type { ReActStep } from '../../src/shared/types';

const base = {
  iteration: 2,
  timestamp: '2026-01-01T00:00:00.000Z',
  tokenUsage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
};

describe('formatStep (the live trace on stderr)', () => {
  it('shows thought, action and observation, marking errors', () => {
    const step: ReActStep = {
      ...base,
      thought: 'Need the sum.',
      action: { type: 'tool_call', tool: 'calculator', args: { expression: '1+' }, callId: 'c1' },
      observation: '[error] calculator({"expression":"1+"}): unexpected end of expression',
      isError: true,
    };
    expect(formatStep(step).split('\n')).toEqual([
      '[step 2] Thought: Need the sum.',
      '           Action: calculator {"expression":"1+"}',
      '           Observation (error): [error] calculator({"expression":"1+"}): unexpected end of expression',
    ]);
  });

  it('prints a native final answer (thought and answer are the same text) once, on the step line', () => {
    const step: ReActStep = {
      ...base,
      thought: '42',
      action: { type: 'final_answer', answer: '42' },
      observation: null,
      forced: true,
    };
    expect(formatStep(step)).toBe('[step 2] Final answer (forced): 42');
  });

  it('keeps long observations to one clipped line', () => {
    const step: ReActStep = {
      ...base,
      thought: 't',
      action: { type: 'tool_call', tool: 'read_file', args: {}, callId: 'c' },
      observation: 'line\n'.repeat(500),
    };
    const observationLine = formatStep(step).split('\n')[2] ?? '';
    expect(observationLine.length).toBeLessThan(340);
    expect(observationLine.endsWith('…')).toBe(true);
  });

  it('says when a call may have happened unseen, what reconcile said and who decided', () => {
    const step: ReActStep = {
      iteration: 2,
      thought: 'The invoice is due.',
      action: { type: 'tool_call', tool: 'pay', args: { amount: 40 }, callId: 'c2-1' },
      observation: 'Paid 40, receipt r-1.',
      effect: {
        attempts: 2,
        mayHaveHappened: true,
        noticedBy: 'retry',
        reconcile: 'unknown',
        detail: 'payment search is down',
        decision: { kind: 'respond', by: { identity: 'alice', channel: 'inbox' } },
      },
      timestamp: '2026-01-01T00:00:00.000Z',
      tokenUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    };
    expect(formatStep(step).split('\n').at(-1)).toBe(
      '           Effect: may have happened unseen (2 attempts); reconcile: unknown (payment search is down); decided: respond by alice via inbox',
    );
  });
});
