import { describe, expect, it } from 'vitest';
import { argsHash } from '../../src/shared/canonical';
import { formatDuration, parseDuration } from '../../src/shared/duration';
import {
  needsConfirmation,
  normalizePath,
  ruleHolds,
  waivedMandatoryTools,
} from '../../src/workflow/people/confirmation';

const config = { approvals: { require: [] as string[], skip: [] as string[] } };

describe('confirmation rules', () => {
  it('path_outside: relative paths escaping the folder, absolute paths elsewhere, and non-strings need confirmation', () => {
    const rule = { when: 'path_outside', arg: 'path', folder: 'workspace' } as const;
    expect(ruleHolds(rule, { path: 'workspace/notes.txt' })).toBe(false);
    expect(ruleHolds(rule, { path: './workspace/a/../b.txt' })).toBe(false);
    expect(ruleHolds(rule, { path: 'workspace/../secrets.txt' })).toBe(true);
    expect(ruleHolds(rule, { path: 'workspace-old/x' })).toBe(true);
    expect(ruleHolds(rule, { path: '/etc/passwd' })).toBe(true);
    expect(ruleHolds(rule, { path: 42 })).toBe(true);
    const root = { when: 'path_outside', arg: 'path', folder: '.' } as const;
    expect(ruleHolds(root, { path: 'a/b' })).toBe(false);
    expect(ruleHolds(root, { path: 'a/../../b' })).toBe(true);
  });

  it('greater_than, equals, matches, nested arguments and combinators', () => {
    expect(ruleHolds({ when: 'greater_than', arg: 'amount', value: 100 }, { amount: 100 })).toBe(false);
    expect(ruleHolds({ when: 'greater_than', arg: 'amount', value: 100 }, { amount: 100.01 })).toBe(true);
    expect(ruleHolds({ when: 'greater_than', arg: 'amount', value: 100 }, { amount: '5' })).toBe(true); // unsure: ask
    expect(ruleHolds({ when: 'equals', arg: 'env', value: 'production' }, { env: 'production' })).toBe(true);
    expect(
      ruleHolds({ when: 'matches', arg: 'sql', pattern: '^\\s*(drop|delete)', flags: 'i' }, { sql: ' DROP TABLE x' }),
    ).toBe(true);
    expect(ruleHolds({ when: 'equals', arg: 'target.env', value: 'prod' }, { target: { env: 'prod' } })).toBe(true);
    const either = {
      anyOf: [
        { when: 'equals', arg: 'a', value: 1 },
        { when: 'equals', arg: 'b', value: 2 },
      ],
    } as const;
    expect(ruleHolds(either, { a: 0, b: 2 })).toBe(true);
    const both = {
      allOf: [
        { when: 'equals', arg: 'a', value: 1 },
        { when: 'equals', arg: 'b', value: 2 },
      ],
    } as const;
    expect(ruleHolds(both, { a: 0, b: 2 })).toBe(false);
  });

  it('config and always-approvals override the tool policy', () => {
    const tool = { name: 'delete', confirm: 'always' as const };
    expect(needsConfirmation(tool, {}, config, [])).toBe(true);
    expect(needsConfirmation(tool, {}, config, ['delete'])).toBe(false);
    expect(
      needsConfirmation(
        { name: 'calc', confirm: 'never' },
        {},
        { ...config, approvals: { ...config.approvals, require: ['calc'] } },
        [],
      ),
    ).toBe(true);
  });

  it("the config cannot waive a tool its author declared confirm: 'always'; a person's approve-always can", () => {
    const tool = { name: 'delete', confirm: 'always' as const };
    expect(needsConfirmation(tool, {}, { ...config, approvals: { ...config.approvals, skip: ['delete'] } }, [])).toBe(
      true,
    );
    expect(needsConfirmation(tool, {}, config, ['delete'])).toBe(false);
    const rule = { name: 'pay', confirm: { when: 'greater_than', arg: 'amount', value: 100 } as const };
    expect(
      needsConfirmation(rule, { amount: 500 }, { ...config, approvals: { ...config.approvals, skip: ['pay'] } }, []),
    ).toBe(false);
    expect(
      waivedMandatoryTools([tool, rule, { name: 'calc', confirm: 'never' }], {
        approvals: { require: [], skip: ['delete', 'pay', 'calc'] },
      }),
    ).toEqual(['delete']);
  });

  it('normalizePath resolves . and .. like POSIX', () => {
    expect(normalizePath('a//b/./c/../d')).toBe('a/b/d');
    expect(normalizePath('../a/../../b')).toBe('../../b');
    expect(normalizePath('/a/../../b')).toBe('/b');
    expect(normalizePath('./')).toBe('.');
  });
});

describe('argsHash and durations', () => {
  it('argsHash ignores key order and changes with any value', () => {
    expect(argsHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(argsHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
    expect(argsHash({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });

  it('parseDuration reads seconds and unit strings, refusing nonsense', () => {
    expect(parseDuration(90)).toBe(90_000);
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('soon')).toBeNull();
    expect(parseDuration(0)).toBeNull();
    expect(parseDuration('-1h')).toBeNull();
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(2000)).toBe('2s');
    expect(formatDuration(1500)).toBe('1500ms');
  });
});
