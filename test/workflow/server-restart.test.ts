import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';
import { startScriptedModel } from '../../src/testing/scripted-model';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { createAgentWorker, createOpenAIClient } from '../../src/worker';
import { waitForPending } from '../support/harness';
import { createTestTools, firstRunIdOf, recordedEffects } from '../support/test-tools';
import { freePort } from '../../src/testing/free-port';

/** A worker and client against one server; close() stops both. */
async function connect(server: DevServer, baseURL: string) {
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue: 'restart-test',
    registry: new ToolRegistry([...createBuiltinTools({ root: os.tmpdir() }), ...createTestTools()]),
    openai: createOpenAIClient({ baseURL }),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  const running = worker.run();
  const agents = new AgentClient({ client: new Client({ connection }), taskQueue: 'restart-test' });
  return {
    agents,
    async close() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    },
  };
}

describe('a persisted dev server', () => {
  it('keeps a pending approval across a server restart; the run completes after it', { timeout: 120_000 }, async () => {
    const dbFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-db-')), 'temporal.db');
    const options = {
      dbFile,
      port: await freePort(),
      uiPort: await freePort(),
      searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
    };
    const model = await startScriptedModel();
    model.script('restart', [
      {
        thought: 'Deleting the stale record is what was asked for.',
        toolCalls: [{ name: 'delete_record', args: { id: 'persisted' } }],
      },
      { answer: 'deleted after the restart' },
    ]);
    let server = await startDevServer(options);
    let side = await connect(server, model.baseURL);
    try {
      const run = await side.agents.start('delete the stale record', { model: 'restart' });
      const firstRunId = await firstRunIdOf(side.agents.client, run.workflowId);
      await waitForPending(side, run.workflowId);
      await side.close();
      await server.stop();

      server = await startDevServer(options);
      side = await connect(server, model.baseURL);
      expect((await side.agents.handle(run.workflowId).getPending()).approvals[0]?.args).toEqual({ id: 'persisted' });
      await side.agents.handle(run.workflowId).approve('c1-1');
      const result = await side.agents.handle(run.workflowId).result();
      expect(result.finalAnswer).toBe('deleted after the restart');
      expect(recordedEffects.get(`${firstRunId}:c1-1`)).toBe(1);
    } finally {
      await side.close();
      await server.stop();
      await model.close();
    }
  });
});
