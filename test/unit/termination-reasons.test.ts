import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINATION_REASONS } from '../../src/shared/termination-reasons';

/*
 * The reference says the run's termination reasons are "exactly" a list: a reason added to the code and not to that
 * sentence (issue 50, F4: `cost_budget`) leaves people switching over a result with a case they never heard of.
 */
describe('the termination reasons in the docs', () => {
  it('are exactly the ones a run can end with', () => {
    const page = readFileSync(path.resolve(__dirname, '../../docs/how-a-run-works.md'), 'utf8');
    const sentence = /\*\*Termination reasons\*\* are exactly ([^;]+);/.exec(page.replace(/\n/g, ' '))?.[1] ?? '';
    const listed = [...sentence.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    expect([...listed].sort()).toEqual([...TERMINATION_REASONS].sort());
  });
});
