import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_DIR,
  CONTRACT_VERSION,
  INTERNAL_MESSAGES,
  buildContract,
  declaredMessages,
  fileText,
} from '../../scripts/contract';
import { checkAnswerPayload, checkDecisionPayload } from '../../src/shared/approvals';
import { checkBudgetPayload } from '../../src/shared/budget';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import { checkPayload, type Check } from '../../src/shared/payload-check';
import { contractValidators, publishedContract } from '../support/contract';

const validators = contractValidators();

describe('the wire contract (docs/contract/)', () => {
  it('is what npm run docs:contract writes', () => {
    const expected = new Map(buildContract().map(({ file, schema }) => [file, fileText(schema)]));
    const published = publishedContract();
    const stale = [...expected].filter(([file, text]) => fileText(published.get(file) ?? {}) !== text).map(([f]) => f);
    const extra = [...published.keys()].filter((file) => !expected.has(file));
    // Not toEqual on the texts: a diff of 90 kB of schema would bury the one instruction that fixes it.
    if (stale.length > 0 || extra.length > 0) {
      expect.fail(`${CONTRACT_DIR} differs (${[...stale, ...extra].join(', ')}): run npm run docs:contract`);
    }
  });

  it('publishes the workflow and every message of messages.ts but the internal ones, each with its version', () => {
    const index = publishedContract().get('index.json') as { contractVersion: number; messages: { name: string }[] };
    const names = declaredMessages()
      .map((message) => message.name)
      .filter((name) => !INTERNAL_MESSAGES.includes(name));
    expect(index.messages.map((message) => message.name).sort()).toEqual(
      [AGENT_WORKFLOW_TYPE, ...new Set(names)].sort(),
    );
    for (const [file, schema] of publishedContract()) expect(schema['contractVersion'], file).toBe(CONTRACT_VERSION);
    const readme = readFileSync(path.resolve(__dirname, '../..', CONTRACT_DIR, 'README.md'), 'utf8');
    expect(readme).toContain(`Contract version: **${CONTRACT_VERSION}**`);
  });

  it('loads in a strict JSON Schema validator, with the update results and query answers typed', () => {
    const index = publishedContract().get('index.json') as {
      messages: Array<{ name: string; input: boolean; result: boolean }>;
    };
    for (const message of index.messages) {
      if (message.input) expect(validators(message.name, 'input'), message.name).toBeTypeOf('function');
      if (message.result) expect(validators(message.name, 'result'), message.name).toBeTypeOf('function');
    }
    // A query answer or result the generator could not follow would come out as an empty schema that admits anything.
    for (const message of ['getTrace', 'getStatus', 'getPending', 'getEvents', 'decide', 'reactAgentWorkflow']) {
      expect(validators(message, 'result')('not an answer'), message).toBe(false);
    }
    expect(validators('getScratchpad', 'result')(3)).toBe(false);
    expect(validators('getPrompt', 'result')(null)).toBe(true);
  });

  it("takes the run config as people write it, and refuses what the worker refuses (the worker's own rule)", () => {
    const input = validators(AGENT_WORKFLOW_TYPE, 'input');
    expect(input({ query: 'q', config: { limits: { maxIterations: 3 }, approvals: { timeout: '1h' } } })).toBe(true);
    expect(input({ query: 'q', config: { maxIterations: 3, model: 'm' } })).toBe(false);
    expect(input({ query: 'q', config: { limits: { maxIterations: 'three' } } })).toBe(false);
    expect(input({ query: 'q', config: { nonsense: true } })).toBe(false);
    expect(input({ config: {} })).toBe(false);
  });

  // The schema comes from the combinators that check; these say the two agree, including where trimming matters.
  const samples: Array<[string, string, Check<unknown>, unknown]> = [
    ['decide', 'approve', checkDecisionPayload, { callId: 'c1-1', decision: 'approve' }],
    [
      'decide',
      'approve always, signed',
      checkDecisionPayload,
      {
        callId: 'c1-1',
        decision: 'approve',
        always: true,
        argsHash: 'ab',
        identity: 'alice',
        roles: ['ops'],
        channel: 'inbox',
        signature: { keyId: 'k', workflowId: 'w', firstRunId: 'r', expiresAt: 'x', value: 'v' },
      },
    ],
    ['decide', 'reject with a reason', checkDecisionPayload, { callId: 'c', decision: 'reject', reason: 'no' }],
    ['decide', 'reject with a blank reason', checkDecisionPayload, { callId: 'c', decision: 'reject', reason: '   ' }],
    ['decide', 'reject without reason', checkDecisionPayload, { callId: 'c', decision: 'reject' }],
    ['decide', 'edit', checkDecisionPayload, { callId: 'c', decision: 'edit', args: { id: 'r1' } }],
    ['decide', 'edit with array args', checkDecisionPayload, { callId: 'c', decision: 'edit', args: ['r1'] }],
    ['decide', 'respond', checkDecisionPayload, { callId: 'c', decision: 'respond', observation: '' }],
    ['decide', 'an unknown decision', checkDecisionPayload, { callId: 'c', decision: 'maybe' }],
    ['decide', 'a field of another variant', checkDecisionPayload, { callId: 'c', decision: 'approve', reason: 'x' }],
    ['decide', 'an unknown field', checkDecisionPayload, { callId: 'c', decision: 'approve', extra: 1 }],
    ['decide', 'an empty callId', checkDecisionPayload, { callId: '', decision: 'approve' }],
    ['decide', 'a bad channel', checkDecisionPayload, { callId: 'c', decision: 'approve', channel: 'fax' }],
    ['decide', '51 roles', checkDecisionPayload, { callId: 'c', decision: 'approve', roles: Array(51).fill('r') }],
    ['decide', 'a blank identity', checkDecisionPayload, { callId: 'c', decision: 'approve', identity: ' ' }],
    ['decide', 'not an object', checkDecisionPayload, 'approve'],
    ['answer', 'an answer', checkAnswerPayload, { answer: 'staging', callId: 'c1-1' }],
    ['answer', 'a blank answer', checkAnswerPayload, { answer: ' ' }],
    ['decideBudget', 'a raise', checkBudgetPayload, { requestId: 'b1', decision: 'raise', amount: 2.5 }],
    ['decideBudget', 'a plain raise', checkBudgetPayload, { requestId: 'b1', decision: 'raise' }],
    ['decideBudget', 'a raise of 0', checkBudgetPayload, { requestId: 'b1', decision: 'raise', amount: 0 }],
    ['decideBudget', 'a raise too big', checkBudgetPayload, { requestId: 'b1', decision: 'raise', amount: 2e9 }],
    ['decideBudget', 'stop', checkBudgetPayload, { requestId: 'b1', decision: 'stop' }],
    ['decideBudget', 'stop with an amount', checkBudgetPayload, { requestId: 'b1', decision: 'stop', amount: 1 }],
  ];
  it.each(samples)('%s: the schema and the check agree on %s', (message, _name, check, payload) => {
    expect(validators(message, 'input')(payload)).toBe(checkPayload(check, payload).ok);
  });
});
