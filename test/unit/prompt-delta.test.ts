import { describe, expect, it } from 'vitest';
import { applyPromptDelta, promptDelta, type ChatMessage } from '../../src/shared/protocol';
import { PromptCache } from '../../src/worker/activities/prompt-cache';

const system: ChatMessage = { role: 'system', content: 'You are careful.' };
const task: ChatMessage = { role: 'user', content: 'Add the numbers.' };
const step = (n: number): ChatMessage[] => [
  {
    role: 'assistant',
    content: `step ${n}`,
    toolCalls: [{ id: `c${n}`, name: 'calculator', argumentsText: `{"n":${n}}` }],
  },
  { role: 'tool', toolCallId: `c${n}`, content: String(n) },
];

describe('prompt deltas', () => {
  it('a run’s first prompt travels whole, later ones as the messages after the shared start', () => {
    const first = [system, task, ...step(1)];
    const delta1 = promptDelta(undefined, first);
    expect(delta1).toEqual({ seq: 1, keep: 0, append: first, length: 4 });
    const second = [system, task, ...step(1), ...step(2)];
    const delta2 = promptDelta({ seq: 1, messages: first }, second);
    expect(delta2).toEqual({ seq: 2, keep: 4, append: step(2), length: 6 });
    expect(applyPromptDelta({ seq: 1, messages: first }, delta2)).toEqual(second);
  });

  it('a prompt that drops earlier messages (a summary took their place) keeps only the shared start', () => {
    const before = [system, task, ...step(1), ...step(2)];
    const after = [system, task, { role: 'user' as const, content: 'Summary: 1 and 2 done.' }, ...step(3)];
    const delta = promptDelta({ seq: 4, messages: before }, after);
    expect(delta.keep).toBe(2);
    expect(applyPromptDelta({ seq: 4, messages: before }, delta)).toEqual(after);
  });

  it('a message that differs in a tool call’s arguments is not shared', () => {
    const changed: ChatMessage[] = [
      { role: 'assistant', content: 'step 1', toolCalls: [{ id: 'c1', name: 'calculator', argumentsText: '{"n":9}' }] },
    ];
    expect(promptDelta({ seq: 1, messages: [system, ...step(1)] }, [system, ...changed]).keep).toBe(1);
  });

  it('a delta never applies to another prompt than the one it was made from', () => {
    const base = { seq: 1, messages: [system, task] };
    const delta = promptDelta(base, [system, task, ...step(1)]);
    expect(applyPromptDelta({ seq: 2, messages: [system, task] }, delta)).toBeNull();
    expect(applyPromptDelta(undefined, delta)).toBeNull();
    expect(applyPromptDelta({ seq: 1, messages: [system] }, delta)).toBeNull();
    expect(applyPromptDelta(base, { ...delta, length: 5 })).toBeNull();
  });
});

describe('the worker’s prompt cache', () => {
  it('lets the least recently used runs go once its prompts exceed the bound', () => {
    const cache = new PromptCache(40);
    const prompt = (content: string) => ({ seq: 1, messages: [{ role: 'user' as const, content }] });
    cache.set('a', prompt('x'.repeat(15)));
    cache.set('b', prompt('y'.repeat(15)));
    cache.get('a');
    cache.set('c', prompt('z'.repeat(15)));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.messages[0]?.content).toHaveLength(15);
    expect(cache.size).toEqual({ runs: 2, chars: 30 });
    // A prompt larger than the whole bound is not kept (its next call asks the workflow).
    cache.set('d', prompt('w'.repeat(41)));
    expect(cache.get('d')).toBeUndefined();
  });
});
