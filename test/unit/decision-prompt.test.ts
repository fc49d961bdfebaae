import { describe, expect, it } from 'vitest';
import {
  APPROVAL_WITH_WORDS,
  promptDecision,
  readChoice,
  UNKNOWN_CHOICE,
  type Asker,
} from '../../src/cli/decision-prompt';
import type { PendingCall } from '../../src/shared/approvals';

const call: PendingCall = {
  callId: 'c2-1',
  tool: 'transfer',
  args: { amount: 500, to: 'bob' },
  argsHash: '0123456789abcdef',
  question: 'Run transfer?',
  requestedAt: '2026-01-01T00:00:00.000Z',
  deadline: '2026-01-02T00:00:00.000Z',
};

function scripted(answers: string[]): Asker & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    question: async (prompt) => {
      prompts.push(prompt);
      const next = answers.shift();
      if (next === undefined) throw new Error(`no scripted answer for "${prompt}"`);
      return next;
    },
  };
}

describe('promptDecision (interactive run)', () => {
  const said: string[] = [];
  const say = (line: string) => said.push(line);

  it('shows the call and maps each answer to a decision', async () => {
    expect(await promptDecision(scripted(['a']), call, say)).toEqual({ decision: 'approve' });
    expect(said.join('\n')).toContain('The agent wants to run transfer({"amount":500,"to":"bob"})  (call c2-1');
    // A bare Enter decides nothing: it asks again until a choice is typed.
    said.length = 0;
    expect(await promptDecision(scripted(['', '  ', 'r', 'no']), call, say)).toEqual({
      decision: 'reject',
      reason: 'no',
    });
    expect(said.filter((line) => line === UNKNOWN_CHOICE)).toHaveLength(2);
    expect(await promptDecision(scripted(['A']), call, say)).toEqual({ decision: 'approve', always: true });
    expect(await promptDecision(scripted(['r', '', 'too much']), call, say)).toEqual({
      decision: 'reject',
      reason: 'too much',
    });
    expect(await promptDecision(scripted(['s', 'Already paid.']), call, say)).toEqual({
      decision: 'respond',
      observation: 'Already paid.',
    });
  });

  it('asks again for unknown choices and for arguments that are not a JSON object', async () => {
    said.length = 0;
    const asker = scripted(['x', 'e', '{bad', '[1]', '{"amount": 50, "to": "bob"}']);
    expect(await promptDecision(asker, call, say)).toEqual({ decision: 'edit', args: { amount: 50, to: 'bob' } });
    expect(said).toContain(UNKNOWN_CHOICE);
    expect(said.some((line) => line.startsWith('Not valid JSON'))).toBe(true);
    expect(said).toContain('That is JSON but not an object; try again.');
  });

  it('takes yes, y, no and n in any case, as people type them to resume a run', async () => {
    for (const yes of ['yes', 'y', 'YES', 'Yes', 'Y', ' yes ']) {
      expect(await promptDecision(scripted([yes]), call, say), yes).toEqual({ decision: 'approve' });
    }
    for (const no of ['no', 'n', 'NO', 'No', 'N']) {
      expect(await promptDecision(scripted([no, 'not today']), call, say), no).toEqual({
        decision: 'reject',
        reason: 'not today',
      });
    }
    // `A` still means always, `a` approve: the one choice whose case matters.
    expect(readChoice('A')).toEqual({ kind: 'always' });
    expect(readChoice('a')).toEqual({ kind: 'approve' });
    expect(readChoice('Always')).toEqual({ kind: 'always' });
    expect(readChoice('R')).toEqual({ kind: 'reject' });
  });

  it('reads free text as a rejection whose reason is the text, which the agent sees', async () => {
    said.length = 0;
    expect(await promptDecision(scripted(['No, send it to alice instead']), call, say)).toEqual({
      decision: 'reject',
      reason: 'No, send it to alice instead',
    });
    expect(said).toContain('Rejected; the agent reads your words as the reason.');
    expect(readChoice('  too much money  ')).toEqual({ kind: 'reject_because', reason: 'too much money' });
  });

  it('asks again for one unknown word and for words that begin as an approval', async () => {
    said.length = 0;
    // A typo must not decide anything, and "yes, but …" must neither run the tool nor be taken as a rejection.
    expect(readChoice('yess')).toEqual({ kind: 'unknown', hint: UNKNOWN_CHOICE });
    expect(readChoice('constructor')).toEqual({ kind: 'unknown', hint: UNKNOWN_CHOICE });
    expect(await promptDecision(scripted(['yes, but to alice', 'Y']), call, say)).toEqual({ decision: 'approve' });
    expect(said).toContain(APPROVAL_WITH_WORDS);
  });
});
