import { describe, expect, it } from 'vitest';
import { LATENCY_SAMPLES, ModelLatency, SAMPLE_MAX_AGE_MS } from '../../src/worker/model-latency';

/** 40% of the default 10 s workflow task timeout. */
const OPEN_LOCALLY_WITHIN_MS = 4_000;

describe('which models a worker has seen answer quickly', () => {
  it('says no until it has seen enough calls, then yes while every recent one was quick', () => {
    const latency = new ModelLatency();
    expect(latency.answersQuickly('m')).toBe(false);
    for (let call = 1; call < LATENCY_SAMPLES; call++) latency.record('m', 200);
    expect(latency.answersQuickly('m')).toBe(false);
    latency.record('m', OPEN_LOCALLY_WITHIN_MS);
    expect(latency.answersQuickly('m')).toBe(true);
  });

  it('one slow call among the recent ones says no, until it has been pushed out by quick ones', () => {
    const latency = new ModelLatency();
    for (let call = 0; call < LATENCY_SAMPLES; call++) latency.record('m', 300);
    latency.record('m', OPEN_LOCALLY_WITHIN_MS + 1);
    expect(latency.answersQuickly('m')).toBe(false);
    for (let call = 1; call < LATENCY_SAMPLES; call++) latency.record('m', 300);
    expect(latency.answersQuickly('m')).toBe(false);
    latency.record('m', 300);
    expect(latency.answersQuickly('m')).toBe(true);
  });

  it('keeps each model apart: a quick one says nothing of a slow one', () => {
    const latency = new ModelLatency();
    for (let call = 0; call < LATENCY_SAMPLES; call++) {
      latency.record('quick', 100);
      latency.record('reasoning', 30_000);
    }
    expect(latency.answersQuickly('quick')).toBe(true);
    expect(latency.answersQuickly('reasoning')).toBe(false);
    expect(latency.answersQuickly('unseen')).toBe(false);
  });

  it("judges against the run's own workflow task timeout", () => {
    const latency = new ModelLatency();
    for (let call = 0; call < LATENCY_SAMPLES; call++) latency.record('m', 1_500);
    expect(latency.answersQuickly('m')).toBe(true);
    expect(latency.answersQuickly('m', 30_000)).toBe(true);
    // A 2 s task is heartbeated every 1.6 s: a call of 1.5 s is too close to it.
    expect(latency.answersQuickly('m', 2_000)).toBe(false);
  });

  it('a failed call says no until quick answers push it out: a failing model must not hold a task open', () => {
    const latency = new ModelLatency();
    for (let call = 0; call < LATENCY_SAMPLES; call++) latency.record('m', 300);
    latency.recordFailure('m');
    expect(latency.answersQuickly('m')).toBe(false);
    for (let call = 0; call < LATENCY_SAMPLES; call++) latency.record('m', 300);
    expect(latency.answersQuickly('m')).toBe(true);
  });

  it('calls older than ten minutes say nothing: a worker left idle starts cautious again', () => {
    let now = 1_000_000;
    const latency = new ModelLatency(() => now);
    for (let call = 0; call < LATENCY_SAMPLES; call++) latency.record('m', 300);
    now += SAMPLE_MAX_AGE_MS - 1;
    expect(latency.answersQuickly('m')).toBe(true);
    now += 2;
    expect(latency.answersQuickly('m')).toBe(false);
  });
});
