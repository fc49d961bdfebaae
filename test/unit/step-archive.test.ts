import { describe, expect, it } from 'vitest';
import type { ReActStep } from '../../src/shared/types';
import { ZERO_USAGE } from '../../src/shared/cost';
import {
  ARCHIVE_MAX_BYTES,
  archiveSteps,
  fitSteps,
  promptSteps,
  TRACE_MAX_BYTES,
  traceSteps,
} from '../../src/shared/step-archive';

function step(iteration: number, observation: string, data?: unknown): ReActStep {
  return {
    iteration,
    thought: 'I look it up.',
    action: { type: 'tool_call', tool: 'search', args: { query: `q${iteration}` }, callId: `c${iteration}-1` },
    observation,
    ...(data !== undefined ? { observationData: data } : {}),
    timestamp: '2025-01-01T00:00:00.000Z',
    tokenUsage: ZERO_USAGE,
  };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('the steps a run archives when it continues-as-new', () => {
  it('keeps steps that fit as they are', () => {
    const steps = [step(1, 'short', { hits: 1 }), step(2, 'also short')];
    expect(archiveSteps(steps)).toEqual({ steps, clippedSteps: 0 });
  });

  it('steps over the cap lose their data first, then observations are cut and say so', () => {
    const steps = [step(1, 'x'.repeat(3000), { blob: 'y'.repeat(3000) }), step(2, 'short')];
    const archive = archiveSteps(steps, 2000);
    expect(archive?.clippedSteps).toBe(1);
    expect(bytes(archive?.steps)).toBeLessThanOrEqual(2000);
    const [first, second] = archive?.steps ?? [];
    expect(first?.clippedInArchive).toBe(true);
    expect(first?.observationData).toBeUndefined();
    expect(first?.observation).toMatch(/^\[clipped from 3000 characters in the run's archive\] x+$/);
    expect(second).toEqual(steps[1]);
  });

  it('the cap counts UTF-8 bytes, so a run of multi-byte text is clipped too', () => {
    const steps = [step(1, 'é'.repeat(ARCHIVE_MAX_BYTES / 2 + 10))];
    const archive = archiveSteps(steps);
    expect(archive?.steps[0]?.clippedInArchive).toBe(true);
    expect(bytes(archive?.steps)).toBeLessThanOrEqual(ARCHIVE_MAX_BYTES);
  });

  it('gives up (the client then asks a worker) when even empty observations do not fit', () => {
    const steps = Array.from({ length: 50 }, (_, index) => step(index + 1, 'x'.repeat(100)));
    expect(archiveSteps(steps, 1000)).toBeUndefined();
  });
});

describe('steps in a result, a trace query and a prompt', () => {
  it('a trace keeps small steps as they are and clips large ones, saying where', () => {
    const small = [step(1, 'short', { hits: 1 })];
    expect(traceSteps(small, JSON.stringify(small).length)).toBe(small);
    const large = Array.from({ length: 8 }, (_, index) => step(index + 1, 'o'.repeat(400_000)));
    const trace = traceSteps(large, JSON.stringify(large).length);
    expect(bytes(trace)).toBeLessThanOrEqual(TRACE_MAX_BYTES);
    expect(trace[0]?.observation).toMatch(/^\[clipped from 400000 characters in the run's trace\] o+$/);
  });

  it('the last resort cuts thoughts and large arguments too, so steps of huge thoughts still fit', () => {
    const huge = Array.from({ length: 20 }, (_, index) => ({
      ...step(index + 1, 'x'),
      thought: 't'.repeat(100_000),
      action: { type: 'tool_call' as const, tool: 'write', args: { text: 'a'.repeat(100_000) }, callId: `c${index}` },
    }));
    expect(fitSteps(huge, 100_000, 'trace')).toBeUndefined();
    const fitted = fitSteps(huge, 100_000, 'trace', true);
    expect(bytes(fitted)).toBeLessThanOrEqual(100_000);
    expect(fitted?.[0]?.thought).toMatch(/^\[clipped from 100000 characters in the run's trace\] t{256}$/);
    const action = fitted?.[0]?.action;
    expect(action?.type === 'tool_call' && JSON.stringify(action.args)).toMatch(/^\{"clipped":"\[clipped from \d+/);
  });

  it("a prompt's steps are cut to what an activity input accepts, each saying so", () => {
    const steps = Array.from({ length: 4 }, (_, index) => step(index + 1, 'p'.repeat(600_000)));
    const prompt = promptSteps(steps);
    expect(prompt).toHaveLength(4);
    expect(prompt[3]?.observation).toMatch(/^\[clipped from 600000 characters in the run's window\]/);
  });
});
