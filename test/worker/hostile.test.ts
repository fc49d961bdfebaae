import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient, AgentRunError, InvalidConfigError, type AgentConfig } from '../../src';
import { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from '../../src/testing';
import { TERMINATION_REASONS } from '../../src/shared/termination-reasons';
import { killWorkerProcesses, startWorkerProcess, type WorkerProcess } from '../support/worker-process';

const thought = 'Each of these results is needed for the figure the user asked for, so I ask for them now.';
const BACKTRACKING = ['^(a+)+$', '(x+x+)+y', '(a|aa)+$', '([a-z]*)*$', '^(\\w+\\s?)+$'];

/** One hostile first reply, and the config the run starts with. */
const hostile = fc.oneof(
  fc.record({
    kind: fc.constant('calls' as const),
    count: fc.integer({ min: 1, max: 10_000 }),
    tool: fc.constantFrom('calculator', 'no_such_tool', 'grep_search'),
  }),
  fc.record({ kind: fc.constant('body' as const), size: fc.integer({ min: 1_000_000, max: 10_000_000 }) }),
  fc.record({ kind: fc.constant('grep' as const), pattern: fc.constantFrom(...BACKTRACKING) }),
  fc.record({ kind: fc.constant('schema' as const), pattern: fc.constantFrom(...BACKTRACKING) }),
);
type Hostile = typeof hostile extends fc.Arbitrary<infer T> ? T : never;

function firstTurn(input: Hostile): { turn: ScriptedTurn; config: AgentConfig } {
  switch (input.kind) {
    case 'calls': {
      const args = input.tool === 'grep_search' ? { pattern: 'a' } : { expression: '1+1' };
      return {
        turn: { thought, toolCalls: Array.from({ length: input.count }, () => ({ name: input.tool, args })) },
        config: {},
      };
    }
    case 'body':
      return { turn: { answer: 'x'.repeat(input.size) }, config: {} };
    case 'grep':
      return {
        turn: { thought, toolCalls: [{ name: 'grep_search', args: { pattern: input.pattern, regex: true } }] },
        config: {},
      };
    case 'schema':
      return {
        turn: { answer: '{"code": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}' },
        config: {
          output: { schema: { type: 'object', properties: { code: { type: 'string', pattern: input.pattern } } } },
        },
      };
  }
}

let model: ScriptedModelServer;
let worker: WorkerProcess;
let agents: AgentClient;
let connection: Connection;
let root: string;

beforeAll(async () => {
  model = await startScriptedModel();
  root = await mkdtemp(path.join(os.tmpdir(), 'dra-hostile-'));
  // A line a backtracking pattern would spin on for minutes.
  await writeFile(path.join(root, 'data.txt'), `${'a'.repeat(40)}!\n${'word '.repeat(40)}!\n`);
  const taskQueue = `hostile-${randomUUID()}`;
  worker = await startWorkerProcess(taskQueue, model.baseURL, { WORKER_TOOLS_ROOT: root });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  agents = new AgentClient({ client: new Client({ connection }), taskQueue });
}, 120_000);

afterAll(async () => {
  killWorkerProcesses();
  await connection?.close();
  await model?.close();
  await rm(root, { recursive: true, force: true });
});

describe('hostile replies against a live worker process', () => {
  it('10,000 tool calls, 10 MB bodies, backtracking regexes: every run ends clearly and /healthz stays 200', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (input) => {
        const { turn, config } = firstTurn(input);
        const name = `hostile-${randomUUID()}`;
        model.script(name, (_request, index) => (index === 0 ? turn : { answer: 'Done, with what I could get.' }));
        let outcome: string;
        try {
          const run = await agents.start('Work out the figure.', {
            ...config,
            model: name,
            limits: { maxIterations: 4 },
          });
          outcome = (await run.result()).terminationReason;
        } catch (error) {
          // A clear refusal is an outcome too: the config before the start, or the run failing with a typed error.
          if (error instanceof InvalidConfigError) outcome = 'refused';
          else if (error instanceof AgentRunError && error.type !== undefined) outcome = `failed: ${error.type}`;
          else throw error;
        }
        expect([...TERMINATION_REASONS, 'refused']).toContain(outcome);
        expect((await fetch(worker.health)).status).toBe(200);
      }),
      // A fixed seed: the same hostile inputs in every run of the suite, each kind among them.
      {
        numRuns: 12,
        seed: 13,
        examples: [[{ kind: 'calls', count: 10_000, tool: 'calculator' }], [{ kind: 'body', size: 10_000_000 }]],
      },
    );
    expect(worker.stderr()).not.toMatch(/async hook stack has become corrupted|FATAL ERROR/);
  }, 300_000);
});
