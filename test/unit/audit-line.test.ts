import { describe, expect, it } from 'vitest';
import { formatAuditEntry } from '../../src/cli/decision-commands';
import type { AuditEntry } from '../../src/client/audit';

const entry = (payload: Record<string, unknown>, result: unknown): AuditEntry => ({
  at: '2026-12-06T03:00:00.000Z',
  runId: 'r1',
  message: 'decide',
  via: 'update',
  identity: 'carol',
  channel: 'cli',
  payload,
  result,
});

describe('an audit line', () => {
  it('names the call an approval ran, with its arguments', () => {
    const line = formatAuditEntry(
      entry(
        { decision: 'approve', callId: 'c1-1' },
        { callId: 'c1-1', tool: 'calculator', decision: 'approve', always: false, args: { expression: '1+1' } },
      ),
    );
    expect(line).toBe('2026-12-06T03:00:00.000Z  carol via cli  approve c1-1 calculator({"expression":"1+1"})');
  });

  it('names a rejected call by its tool alone, not as a call with no arguments', () => {
    const line = formatAuditEntry(
      entry(
        { decision: 'reject', callId: 'c1-1', reason: 'not today' },
        { callId: 'c1-1', tool: 'calculator', decision: 'reject', always: false, args: null },
      ),
    );
    expect(line).toBe('2026-12-06T03:00:00.000Z  carol via cli  reject c1-1 calculator reason: not today');
  });
});
