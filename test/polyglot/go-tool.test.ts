import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { waitForPending } from '../support/pending';
import { startGoProgram, useGoPrograms } from '../support/polyglot';
import { firstRunIdOf } from '../support/test-tools';
import { killWorkerProcesses, startWorkerProcess } from '../support/worker-process';

// A tool that lives in a Go process: polyglot/go/cmd/tool-worker, a Temporal Go SDK worker on its own task queue,
// declared to our worker as a remote tool (WORKER_REMOTE_TOOLS, docs/tools-in-other-languages.md). The agent's
// worker has no handler for it: the run schedules the Go activity, after a person approves the call.

const programs = useGoPrograms();
let model: ScriptedModelServer;
let goWorker: ChildProcess | undefined;
const dir = mkdtempSync(path.join(os.tmpdir(), 'dra-go-tool-'));
const ledger = path.join(dir, 'ledger.jsonl');
const goQueue = `go-tools-${randomUUID()}`;

beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  goWorker?.kill('SIGTERM');
  killWorkerProcesses();
  await model?.close();
});

describe('a tool served by a Go worker', () => {
  it('runs once after a person approves it, and the trace shows its receipt', { timeout: 90_000 }, async () => {
    goWorker = await startGoProgram(programs().toolWorker, ['-task-queue', goQueue, '-ledger', ledger]);
    const remoteTools = path.join(dir, 'remote-tools.json');
    writeFileSync(
      remoteTools,
      JSON.stringify([
        {
          name: 'ledger_transfer',
          description: 'Transfers money between ledger accounts; a person approves every transfer.',
          parameters: {
            type: 'object',
            properties: { amount: { type: 'number', exclusiveMinimum: 0 }, to: { type: 'string', minLength: 1 } },
            required: ['amount', 'to'],
            additionalProperties: false,
          },
          taskQueue: goQueue,
          activityType: 'ledger_transfer',
          timeout: '30s',
          confirm: 'always',
        },
      ]),
    );
    const taskQueue = `agent-${randomUUID()}`;
    await startWorkerProcess(taskQueue, model.baseURL, { WORKER_REMOTE_TOOLS: remoteTools });

    const modelName = `go-tool-${randomUUID()}`;
    model.script(modelName, [
      {
        thought: 'The user asked for a transfer of 250 to acct-42; the ledger tool does it.',
        toolCalls: [{ name: 'ledger_transfer', args: { amount: 250, to: 'acct-42' } }],
      },
      { answer: 'Sent 250 to acct-42.' },
    ]);
    const agents = await AgentClient.connect({
      address: inject('temporalAddress'),
      namespace: inject('temporalNamespace'),
      taskQueue,
      identity: 'treasurer',
    });
    try {
      const run = await agents.start('Send 250 to acct-42.', { model: modelName });
      const pending = await waitForPending({ agents }, run.workflowId);
      expect(pending.approvals).toMatchObject([{ callId: 'c1-1', tool: 'ledger_transfer', args: { amount: 250 } }]);
      // Nothing ran before the decision.
      expect(() => readFileSync(ledger, 'utf8')).toThrow();
      await agents.handle(run.workflowId).approve('c1-1');
      const result = await run.result();

      const key = `${await firstRunIdOf(agents.client, run.workflowId)}:c1-1`;
      expect(result).toMatchObject({ success: true, finalAnswer: 'Sent 250 to acct-42.' });
      expect(result.trace.steps[0]).toMatchObject({
        action: { type: 'tool_call', tool: 'ledger_transfer', args: { amount: 250, to: 'acct-42' } },
        observation: `transferred 250.00 to acct-42 (receipt ${key})`,
        decision: { kind: 'approve', by: { identity: 'treasurer' } },
      });
      expect(result.trace.steps[0]?.isError).toBeFalsy();
      // The Go process ran it exactly once, with the call's idempotency key.
      const lines = readFileSync(ledger, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { idempotencyKey: string; callId: string; amount: number; to: string });
      expect(lines).toEqual([
        expect.objectContaining({ idempotencyKey: key, callId: 'c1-1', amount: 250, to: 'acct-42' }),
      ]);
    } finally {
      await agents.close();
    }
  });
});
