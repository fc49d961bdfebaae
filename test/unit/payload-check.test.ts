import { describe, expect, it } from 'vitest';
import { checkDecisionPayload } from '../../src/shared/approvals';
import { checkBudgetPayload } from '../../src/shared/budget';
import { checkPayload } from '../../src/shared/payload-check';

// The workflow's own checks of what people send it (zod stays out of the workflow bundle): what they keep, trim and
// refuse, and how they say why in one line.
describe('payload checks', () => {
  it('keeps a valid decision, trimming what is trimmed and dropping nothing else', () => {
    const sent = { callId: 'c1-1', decision: 'reject', reason: '  too risky ', identity: ' alice ', roles: [' ops '] };
    expect(checkPayload(checkDecisionPayload, sent)).toEqual({
      ok: true,
      value: { callId: 'c1-1', decision: 'reject', reason: 'too risky', identity: 'alice', roles: ['ops'] },
    });
    const edit = { callId: 'c1-1', decision: 'edit', args: { path: '/tmp/x', nested: { n: 1 } } };
    expect(checkPayload(checkDecisionPayload, edit)).toEqual({ ok: true, value: edit });
  });

  it('names every bad field on one line', () => {
    const result = checkPayload(checkDecisionPayload, {
      callId: '',
      decision: 'approve',
      always: 'yes',
      channel: 'fax',
      roles: ['ok', 7],
    });
    expect(result).toEqual({
      ok: false,
      message:
        'callId: must not be empty; roles.1: expected a string, got number; channel: expected one of inbox, cli, client, signal; always: expected a boolean, got string',
    });
  });

  it('refuses an unknown kind, a missing field, a non-object and a blank reason', () => {
    expect(checkPayload(checkDecisionPayload, { callId: 'c', decision: 'maybe' })).toEqual({
      ok: false,
      message: 'decision: expected one of approve, reject, edit, respond',
    });
    expect(checkPayload(checkDecisionPayload, { decision: 'respond', callId: 'c' })).toEqual({
      ok: false,
      message: 'observation: required',
    });
    expect(checkPayload(checkDecisionPayload, null)).toEqual({ ok: false, message: 'expected an object, got null' });
    expect(checkPayload(checkDecisionPayload, { callId: 'c', decision: 'reject', reason: '   ' })).toEqual({
      ok: false,
      message: 'reason: must not be empty',
    });
  });

  it('counts the unknown fields of a hostile payload past the first ten', () => {
    const hostile = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const result = checkPayload(checkBudgetPayload, { requestId: 'b1', decision: 'stop', ...hostile });
    expect(result).toEqual({
      ok: false,
      message: 'unknown fields: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 15 more',
    });
  });

  it('holds a budget raise to a positive number in range (USD has decimals; the run holds the others whole)', () => {
    for (const amount of [5, 0.25]) {
      expect(checkPayload(checkBudgetPayload, { requestId: 'b1', decision: 'raise', amount })).toMatchObject({
        ok: true,
      });
    }
    for (const amount of [0, -1, 2_000_000_000, '5', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(checkPayload(checkBudgetPayload, { requestId: 'b1', decision: 'raise', amount })).toMatchObject({
        ok: false,
      });
    }
  });
});
