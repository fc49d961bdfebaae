import { describe, expect, it } from 'vitest';
import type { PendingCall } from '../../src/shared/approvals';
import type { Decider } from '../../src/shared/identity';
import { ApprovalBook } from '../../src/workflow/record/approval-book';
import { signedText } from '../../src/shared/signed-decision';

const ALICE: Decider = { identity: 'alice', channel: 'inbox' };

const call = (callId: string, tool = 'delete_record', args: unknown = { id: callId }): PendingCall => ({
  callId,
  tool,
  args,
  argsHash: `hash-${callId}`,
  question: `Run ${tool}?`,
  requestedAt: '2026-01-01T00:00:00.000Z',
  deadline: '2026-01-02T00:00:00.000Z',
});

describe('ApprovalBook', () => {
  it('takes a signed decision by signal as unsigned where no signature is required', () => {
    const signed = {
      callId: 'c1-1',
      decision: 'approve',
      signature: { keyId: 'k', workflowId: 'w', firstRunId: 'r', expiresAt: '2030-01-01T00:00:00.000Z', value: 'x' },
    };
    const newer = new ApprovalBook();
    newer.open(call('c1-1'));
    // A signal cannot be verified: taken as unsigned where no signature is required, refused where one is.
    expect(newer.checkDecision(signed, 'signal')).toMatchObject({ ok: true, value: { by: { channel: 'signal' } } });
    const signing = new ApprovalBook([], { requireSigned: ['delete_record'] });
    signing.open(call('c1-1'));
    expect(signing.checkDecision(signed, 'signal')).toMatchObject({ ok: false, reason: 'unsigned' });
  });

  it('refuses malformed payloads with the field in question', () => {
    const book = new ApprovalBook();
    book.open(call('c1-1'));
    const noReason = book.checkDecision({ callId: 'c1-1', decision: 'reject' });
    expect(!noReason.ok && noReason.message).toMatch(/^Invalid decision: reason: /);
    expect(book.checkDecision({ callId: 'c1-1', decision: 'maybe' })).toMatchObject({ ok: false });
    expect(book.checkDecision({ callId: 'c1-1', decision: 'approve', extra: 1 })).toEqual({
      ok: false,
      reason: 'invalid_payload',
      message: 'Invalid decision: unknown field: extra',
    });
    expect(book.checkDecision('approve')).toMatchObject({ ok: false });
    expect(book.checkDecision({ callId: 'c1-1', decision: 'edit', args: [1] })).toMatchObject({ ok: false });
  });

  it('refuses unknown, decided and mismatched calls; a closed call ID stays refused', () => {
    const book = new ApprovalBook();
    const entry = book.open(call('c1-1'));
    expect(book.checkDecision({ callId: 'c2-1', decision: 'approve' })).toEqual({
      ok: false,
      reason: 'not_pending',
      message: 'No pending call c2-1 (pending: c1-1)',
    });
    expect(book.checkDecision({ callId: 'c1-1', decision: 'approve', argsHash: 'other' })).toMatchObject({ ok: false });
    const checked = book.checkDecision({ callId: 'c1-1', decision: 'approve', argsHash: 'hash-c1-1' });
    expect(checked.ok).toBe(true);
    book.apply({ callId: 'c1-1', decision: 'approve' }, entry, ALICE);
    expect(book.checkDecision({ callId: 'c1-1', decision: 'reject', reason: 'late' })).toEqual({
      ok: false,
      reason: 'already_decided',
      message: 'Call c1-1 was already decided',
    });
    book.close('c1-1');
    expect(book.checkDecision({ callId: 'c1-1', decision: 'approve' })).toEqual({
      ok: false,
      reason: 'already_decided',
      message: 'Call c1-1 was already decided',
    });
    expect(book.snapshot()).toEqual({ approvals: [], question: null, delegations: [], budget: null });
  });

  it('applies each decision kind; always also settles pending calls of the same tool', () => {
    const book = new ApprovalBook();
    const first = book.open(call('c1-1'));
    const sibling = book.open(call('c1-2'));
    const other = book.open(call('c1-3', 'transfer', { amount: 5 }));
    expect(book.apply({ callId: 'c1-1', decision: 'approve', always: true }, first, ALICE)).toEqual({
      callId: 'c1-1',
      tool: 'delete_record',
      decision: 'approve',
      always: true,
      args: { id: 'c1-1' },
      by: ALICE,
    });
    // The sibling was let through by alice's approve-always: the trace says so.
    expect(sibling.resolution).toEqual({
      outcome: 'run',
      args: { id: 'c1-2' },
      decision: { kind: 'approve', always: true, by: ALICE },
    });
    expect(other.resolution).toBeUndefined();
    expect(book.alwaysApproved).toEqual(['delete_record']);
    book.apply({ callId: 'c1-3', decision: 'respond', observation: 'paid already' }, other, ALICE);
    expect(other.resolution).toEqual({
      outcome: 'observe',
      text: 'paid already',
      isError: false,
      decision: { kind: 'respond', by: ALICE },
    });
  });

  it("records who decides, and refuses deciders the tool's approvers do not name (anyone may reject)", () => {
    const book = new ApprovalBook();
    book.open({ ...call('c1-1', 'transfer'), approvers: ['ops-oncall', 'role:finance'] });
    const payload = { callId: 'c1-1', decision: 'approve' };
    expect(book.checkDecision(payload)).toEqual({
      ok: false,
      reason: 'not_allowed',
      message: 'an anonymous sender may not approve call c1-1 (transfer); approvers: ops-oncall, role:finance',
    });
    expect(book.checkDecision({ ...payload, identity: 'mallory', roles: ['dev'] })).toMatchObject({
      ok: false,
      reason: 'not_allowed',
    });
    expect(book.checkDecision({ ...payload, identity: 'bob', roles: ['finance'], channel: 'cli' })).toMatchObject({
      ok: true,
      value: { by: { identity: 'bob', roles: ['finance'], channel: 'cli' } },
    });
    expect(book.checkDecision({ ...payload, identity: 'ops-oncall' })).toMatchObject({
      ok: true,
      value: { by: { identity: 'ops-oncall', channel: 'client' } },
    });
    // A signal is a signal, whatever channel its payload claims.
    expect(book.checkDecision({ ...payload, identity: 'ops-oncall', channel: 'inbox' }, 'signal')).toMatchObject({
      ok: true,
      value: { by: { identity: 'ops-oncall', channel: 'signal' } },
    });
    expect(book.checkDecision({ callId: 'c1-1', decision: 'reject', reason: 'no', identity: 'mallory' }).ok).toBe(true);
  });

  it('checks answers against the pending question', () => {
    const book = new ApprovalBook();
    expect(book.checkAnswer({ answer: 'x' })).toEqual({
      ok: false,
      reason: 'no_question',
      message: 'No question is waiting for an answer',
    });
    book.ask({ callId: 'c3-1', question: 'Which?', requestedAt: '', deadline: '' });
    expect(book.checkAnswer({ answer: '  ' })).toMatchObject({ ok: false });
    expect(book.checkAnswer({ answer: 'this', callId: 'c2-1' })).toEqual({
      ok: false,
      reason: 'not_pending',
      message: 'Question c2-1 is not the pending one (c3-1)',
    });
    expect(book.checkAnswer({ answer: 'this', identity: 'alice', channel: 'inbox' })).toEqual({
      ok: true,
      value: {
        answer: { answer: 'this', identity: 'alice', channel: 'inbox' },
        by: { identity: 'alice', channel: 'inbox' },
      },
    });
  });

  it('checks budget decisions against the pending request, once', () => {
    const book = new ApprovalBook();
    expect(book.checkBudget({ requestId: 'b1', decision: 'stop' })).toMatchObject({ ok: false, reason: 'not_pending' });
    const request = book.askBudget({
      requestId: 'b1',
      limit: 'max_iterations',
      question: 'Raise?',
      current: 2,
      suggested: 2,
      unit: 'iterations',
      detail: 'reached the limit',
      requestedAt: '',
      deadline: '',
    });
    expect(book.snapshot().budget?.requestId).toBe('b1');
    expect(book.checkBudget({ requestId: 'b1', decision: 'raise', amount: 0 })).toMatchObject({
      ok: false,
      reason: 'invalid_payload',
    });
    expect(book.checkBudget({ requestId: 'b2', decision: 'stop' })).toEqual({
      ok: false,
      reason: 'not_pending',
      message: 'No pending budget request b2 (pending: b1)',
    });
    const checked = book.checkBudget({ requestId: 'b1', decision: 'raise', identity: 'alice' }, 'signal');
    expect(checked).toMatchObject({ ok: true, value: { by: { identity: 'alice', channel: 'signal' } } });
    if (checked.ok) request.decided = { outcome: 'raise', amount: 2, by: checked.value.by };
    expect(book.checkBudget({ requestId: 'b1', decision: 'stop' })).toMatchObject({
      ok: false,
      reason: 'already_decided',
    });
    expect(book.snapshot().budget).toBeNull();
  });

  it('an uncertain call: edit refused, approve runs it again without "always", approve-always of a sibling skips it', () => {
    const book = new ApprovalBook();
    const uncertain = book.open({ ...call('c1-1:uncertain', 'pay'), reason: 'uncertain_effect' });
    const sibling = book.open(call('c1-2', 'pay'));
    expect(book.checkDecision({ callId: 'c1-1:uncertain', decision: 'edit', args: { id: 'x' } })).toMatchObject({
      ok: false,
      reason: 'invalid_edit',
    });
    book.apply({ callId: 'c1-2', decision: 'approve', always: true }, sibling, ALICE);
    expect(uncertain.resolution).toBeUndefined(); // "always" confirms later calls; it does not re-run this one
    expect(book.apply({ callId: 'c1-1:uncertain', decision: 'approve', always: true }, uncertain, ALICE)).toMatchObject(
      { decision: 'approve', always: false },
    );
    expect(uncertain.resolution).toEqual({
      outcome: 'run',
      args: { id: 'c1-1:uncertain' },
      decision: { kind: 'approve', by: ALICE },
    });
  });

  it("an MCP server's form: only its tool's approvers fill it in, none unsigned where signing is required", () => {
    const form = { server: 'bank', message: 'Which account?', schema: { type: 'object' } };
    const asked = { callId: 'c1-1.ab12cd34', question: 'Which account?', requestedAt: '', deadline: '', form };
    const about = { ...asked, tool: 'bank__pay' };
    const book = new ApprovalBook();
    book.ask({ ...about, approvers: ['role:ops'] });
    // Roles claimed in a signal are still claims: approvers alone do not make an answer trustworthy (see below).
    expect(book.checkAnswer({ answer: '{"account":"a"}', identity: 'bob' })).toMatchObject({
      ok: false,
      reason: 'not_allowed',
    });
    expect(book.checkAnswer({ answer: 'decline', identity: 'bob' })).toMatchObject({ ok: true });
    const signing = new ApprovalBook([], { requireSigned: ['bank__pay'] });
    signing.ask({ ...about, approvers: ['role:ops'] });
    // For a tool that needs signed decisions, an answer must be signed too (or decline): a claim is not enough.
    const claimed = { answer: '{"account":"a"}', identity: 'olga', roles: ['ops'] };
    expect(signing.checkAnswer(claimed, 'signal')).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(signing.checkAnswer(claimed, 'update')).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(signing.checkAnswer({ answer: 'cancel' }, 'signal')).toMatchObject({ ok: true });
    // An answer's signed text is tagged apart from a decision's: no signature passes for the other.
    const envelope = { keyId: 'k', workflowId: 'w', firstRunId: 'r', expiresAt: '2030-01-01T00:00:00.000Z' };
    expect(signedText({ callId: 'c1-1', answer: 'yes' }, envelope)).toContain('"v":"durable-react-agent/answer/1"');
    expect(signedText({ callId: 'c1-1', decision: 'approve' }, envelope)).toContain('durable-react-agent/decision/1');
  });
});
