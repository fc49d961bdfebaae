import { afterAll, describe, expect, inject, it } from 'vitest';
import { stopAllServers } from '../../chaos/killable-server';
import { createLedgerTool } from '../../chaos/ledger-tool';
import { startLedgerService } from '../../chaos/ledger-service';
import { auditRetries, MODEL_RETRY_POLICY } from '../../chaos/model-faults';
import type { ScenarioReport } from '../../chaos/report';
import type { ChaosContext } from '../../chaos/scenarios/kit';
import { RECONCILE_KILL_POINTS } from '../../chaos/scenarios/reconcile';
import { runScenario, type ChaosSizes } from '../../chaos/suite';
import { killAllWorkers } from '../../chaos/worker-process';
import type { RecordedRequest } from '../../src/testing/scripted-model';

/** The short fault suite: the same scenarios as `npm run chaos`, a few runs each. */
const SHORT: ChaosSizes = {
  workerKillRuns: 3,
  workerKillLanes: 3,
  serverKillRuns: 1,
  modelFaultRuns: 10,
  loadRuns: 20,
  loadSteps: 10,
  clusterRunsPerFault: 3,
  reconcileRuns: RECONCILE_KILL_POINTS.length,
  reconcileLanes: 4,
};

const context = (): ChaosContext => ({
  address: inject('temporalAddress'),
  workflowBundlePath: inject('workflowBundlePath'),
  seed: 1,
  log: () => undefined,
});

// A scenario cut short by a timeout would leave its worker processes and server running after the suite.
afterAll(async () => {
  killAllWorkers();
  await stopAllServers();
});

function expectAllRight(report: ScenarioReport, runs: number): void {
  expect(report.failures).toEqual([]);
  expect(report.records).toHaveLength(runs);
  expect(report.records.filter((record) => record.completed && record.correct)).toHaveLength(runs);
}

// Concurrent: each scenario has its own task queues, worker processes and fakes (server kill, its own server).
describe.concurrent('the fault suite, short', () => {
  it(
    'worker SIGKILLed during a model call, a tool call and an approval wait: right answers, no duplicate effects',
    { timeout: 150_000 },
    async () => {
      const report = await runScenario('worker-kill', context(), SHORT);
      expectAllRight(report, SHORT.workerKillRuns);
      expect(report.counts.kills).toBe(SHORT.workerKillRuns);
      expect(report.duplicateEffects).toBe(0);
      expect(report.counts.appliedWrites).toBe(2 * SHORT.workerKillRuns); // each run's two entries, once each
    },
  );

  it(
    'dev server SIGKILLed mid-run and restarted on its database: the run completes',
    { timeout: 150_000 },
    async () => {
      const report = await runScenario('server-kill', context(), SHORT);
      expectAllRight(report, SHORT.serverKillRuns);
      expect(report.counts.kills).toBe(SHORT.serverKillRuns);
      expect(report.duplicateEffects).toBe(0);
    },
  );

  it(
    '429/5xx, hangs and malformed tool calls: all runs complete, retries follow the policy, a 401 fails at once',
    { timeout: 150_000 },
    async () => {
      const report = await runScenario('model-faults', context(), SHORT);
      expectAllRight(report, SHORT.modelFaultRuns); // failures would also name a 401 that did not fail fast
      expect(report.counts.status).toBeGreaterThan(0);
      expect(report.counts.hang).toBeGreaterThan(0);
      expect(report.counts.malformed).toBeGreaterThan(0);
      expect(report.counts.policyViolations).toBe(0);
    },
  );

  it(
    'a provider with no idempotency keys, the worker SIGKILLed at every step boundary: reconcile or a person settles every uncertain call, nothing doubled or lost',
    { timeout: 200_000 },
    async () => {
      const report = await runScenario('reconcile', context(), SHORT);
      expectAllRight(report, SHORT.reconcileRuns);
      expect(report.counts).toMatchObject({ kills: RECONCILE_KILL_POINTS.length, duplicateEffects: 0, lostEffects: 0 });
      expect(report.counts.appliedWrites).toBe(2 * SHORT.reconcileRuns); // each run's two entries, once each
      // The four kills inside a payment each leave one call whose outcome nobody saw; two of them cannot be searched.
      expect(report.counts).toMatchObject({ uncertain: 4, resolvedByReconcile: 2, resolvedByPerson: 2, unresolved: 0 });
    },
  );

  it('concurrent runs of 10 steps on one worker all finish with the right count', { timeout: 150_000 }, async () => {
    const report = await runScenario('load', context(), SHORT);
    expectAllRight(report, SHORT.loadRuns);
    expect(report.counts.steps).toBe(SHORT.loadRuns * SHORT.loadSteps);
  });
});

describe('the fault suite’s own checks can fail', () => {
  it('the ledger counts a write applied twice as a duplicate; the ledger tool applies a retried call once', async () => {
    const ledger = await startLedgerService();
    try {
      const write = { account: 'acct', entry: 'product', amount: 7 };
      const put = (key: string) =>
        fetch(`${ledger.url}/effects/${key}`, { method: 'PUT', body: JSON.stringify(write) });
      await put('run-1:c1-1');
      await put('run-1:c1-1-retry'); // a careless retry under a new key: the same entry applied again
      expect(ledger.duplicateEffects()).toBe(1);

      const tool = createLedgerTool(ledger.url);
      const context = { idempotencyKey: 'run-2:c2-1', signal: new AbortController().signal };
      const args = { ...write, account: 'other' };
      const first = await tool.handler(args, context);
      const retried = await tool.handler(args, context);
      expect(retried).toEqual({ ...(first as object), replayed: true });
      expect(ledger.balance('other')).toBe(7);
      expect(ledger.duplicateEffects(new Set(['other']))).toBe(0);
    } finally {
      await ledger.close();
    }
  });

  it('the retry audit flags a retry sooner than the backoff and a call over the attempt limit', () => {
    const request = (receivedAt: number): RecordedRequest => ({
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
      authorization: undefined,
      receivedAt,
    });
    const tooSoon = auditRetries(
      [request(0), request(400)],
      new Map([[0, { kind: 'status', status: 500 }]]),
      MODEL_RETRY_POLICY,
      1000,
    );
    expect(tooSoon.violations).toHaveLength(1);
    // A stamp late by the recorder's event-loop lag makes a retry on time look early by as much: the lag is slack.
    const stampedLate = [request(0), request(MODEL_RETRY_POLICY.initialIntervalMs - 250)];
    const failed = new Map([[0, { kind: 'status' as const, status: 500 }]]);
    expect(auditRetries(stampedLate, failed, MODEL_RETRY_POLICY, 1000).violations).toHaveLength(1);
    expect(auditRetries(stampedLate, failed, MODEL_RETRY_POLICY, 1000, 200).violations).toEqual([]);
    const honoured = auditRetries(
      [request(0), request(2000)],
      new Map([[0, { kind: 'status', status: 429, retryAfterMs: 2000 }]]),
      MODEL_RETRY_POLICY,
      1000,
    );
    expect(honoured).toEqual({ retries: 1, violations: [] });
    const times = [0, 1000, 3000, 7000, 15_000, 31_000, 63_000];
    const tooMany = auditRetries(times.map(request), new Map(), MODEL_RETRY_POLICY, 1000);
    expect(tooMany.violations).toEqual([expect.stringContaining('attempt 7')]);
  });
});
