import { describe, expect, it } from 'vitest';
import { LATEST_RULE_SET, RULE_SETS, type RuleFlag } from '../../src/workflow/rule-sets';

// The table is what old histories replay by: a renamed marker or a flag that moves to another generation changes the
// commands of every run recorded with it.

describe('rule sets', () => {
  it('numbers the generations 1, 2, 3, … oldest first, the newest being what new runs get', () => {
    expect(RULE_SETS.map((entry) => entry.generation)).toEqual(RULE_SETS.map((_, index) => index + 1));
    expect(LATEST_RULE_SET).toBe(RULE_SETS[RULE_SETS.length - 1]);
    expect(LATEST_RULE_SET.generation).toBe(7);
  });

  it('keeps the markers histories were recorded with, each used once', () => {
    expect(RULE_SETS.map((entry) => entry.marker)).toEqual([
      null,
      'loop-rules-2',
      'loop-rules-3',
      'loop-rules-4',
      'loop-rules-5',
      'loop-rules-6',
      'loop-rules-7',
    ]);
    const folded = RULE_SETS.flatMap((entry) => Object.values(entry.folds));
    expect(folded).toEqual(['local-tool-catalog', 'config-on-worker', 'handover-keeps-status']);
    const all = [...RULE_SETS.map((entry) => entry.marker).filter((marker) => marker !== null), ...folded];
    expect(new Set(all).size).toBe(all.length);
  });

  it('gives each generation its own changes plus every older one, each flag turned on by one generation', () => {
    const flags = Object.keys(LATEST_RULE_SET.flags) as RuleFlag[];
    expect(flags.every((flag) => !RULE_SETS[0]!.flags[flag])).toBe(true);
    expect(flags.every((flag) => LATEST_RULE_SET.flags[flag])).toBe(true);
    const added = RULE_SETS.flatMap((entry) => entry.adds);
    expect([...added].sort()).toEqual([...flags].sort());
    for (const [index, entry] of RULE_SETS.entries()) {
      if (index === 0) continue;
      expect(entry.adds.length, `generation ${entry.generation} changes nothing`).toBeGreaterThan(0);
      const before = RULE_SETS[index - 1]!.flags;
      for (const flag of flags) {
        expect(entry.flags[flag], `${flag} in generation ${entry.generation}`).toBe(
          before[flag] || entry.adds.includes(flag),
        );
      }
    }
  });
});
