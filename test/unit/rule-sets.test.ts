import { describe, expect, it } from 'vitest';
import { LATEST_RULE_SET, resolveRuleSet, RULE_SETS } from '../../src/workflow/rule-sets';

// The table is what histories replay by: a renamed marker or a flag that moves to another generation changes the
// commands of every run recorded with it.

describe('rule sets', () => {
  it('numbers the generations 1, 2, 3, … oldest first, the newest being what new runs get', () => {
    expect(RULE_SETS.map((entry) => entry.generation)).toEqual(RULE_SETS.map((_, index) => index + 1));
    expect(LATEST_RULE_SET).toBe(RULE_SETS[RULE_SETS.length - 1]);
  });

  it('starts from the 1.0 baseline, which records no marker and has no flags', () => {
    expect(RULE_SETS[0]).toEqual({ generation: 1, marker: null, adds: [], flags: {} });
  });

  it('gives a run of the baseline alone its flags without asking the history for any marker', () => {
    // Outside a workflow `patched()` throws: the baseline is resolved without it, so a new run records nothing. A new
    // generation changes this: new runs then record its marker.
    expect(RULE_SETS).toHaveLength(1);
    expect(resolveRuleSet()).toBe(LATEST_RULE_SET.flags);
  });

  it('records each later generation with a marker of its own', () => {
    const markers = RULE_SETS.slice(1).map((entry) => entry.marker);
    expect(markers.every((marker) => typeof marker === 'string' && marker !== '')).toBe(true);
    expect(new Set(markers).size).toBe(markers.length);
  });

  it('gives each generation its own changes plus every older one, each flag turned on by one generation', () => {
    const flags = Object.keys(LATEST_RULE_SET.flags) as Array<keyof typeof LATEST_RULE_SET.flags>;
    expect(flags.every((flag) => LATEST_RULE_SET.flags[flag])).toBe(true);
    const added = RULE_SETS.flatMap((entry) => entry.adds);
    expect([...added].sort()).toEqual([...flags].sort());
    for (const [index, entry] of RULE_SETS.entries()) {
      if (index === 0) continue;
      expect(entry.adds.length, `generation ${entry.generation} changes nothing`).toBeGreaterThan(0);
      const before = RULE_SETS[index - 1]!.flags;
      for (const flag of flags) {
        expect(entry.flags[flag], `${String(flag)} in generation ${entry.generation}`).toBe(
          before[flag] || entry.adds.includes(flag),
        );
      }
    }
  });
});
