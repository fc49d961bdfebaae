/**
 * Re-records the replay histories in test/histories/: representative runs (success, each decision kind, parallel
 * calls decided out of order, clarification, continue-as-new, subagent, cancellation, timeout, critic and summary)
 * on a fresh embedded dev server with the scripted model. A workflow change that changes the commands of a run lands
 * as a new rule-set generation (src/workflow/rule-sets.ts), so the committed histories still replay (see
 * docs/worker-and-deployment.md, "Changing workflow code"). Name scenarios to record only those: re-recording a
 * history replaces the run of older code it held.
 *
 *   npx tsx scripts/record-histories.ts                       # every scenario
 *   npx tsx scripts/record-histories.ts parallel-decisions    # only the named ones
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyToText } from '../test/support/histories';
import { chainRunIds } from '../src/client/run-chain';
import { CRITIC_MARKER } from '../src/shared/critic';
import { SUMMARIZER_MARKER } from '../src/shared/summaries';
import { type ScriptedModelServer, type ScriptedResponder, type ScriptedTurn } from '../src/testing/scripted-model';
import { createBuiltinTools } from '../src/worker/tools/builtin';
import { ToolRegistry } from '../src/worker/tools/registry';
import { waitForPending } from '../test/support/pending';
import { createTestTools } from '../test/support/test-tools';
import { startLocalStack } from '../src/testing/local-stack';
import type { AgentClient } from '../src/client/agent-client';
import type { AgentConfig } from '../src/shared/agent-config';

const OUT = path.resolve(__dirname, '../test/histories');
const thought = 'This step needs the tool, so I call it with care.';
const calc = (expression: string): ScriptedTurn => ({
  thought,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});
const remove = (id: string): ScriptedTurn => ({ thought, toolCalls: [{ name: 'delete_record', args: { id } }] });

type Scenario = (agents: AgentClient, model: ScriptedModelServer, name: string) => Promise<string[]>;

/** Starts a run on a scripted model named after the scenario; returns the workflow IDs whose histories to keep. */
async function run(
  agents: AgentClient,
  model: ScriptedModelServer,
  name: string,
  turns: ScriptedTurn[] | ScriptedResponder,
  config: AgentConfig = {},
) {
  model.script(name, turns);
  return agents.start(`scenario ${name}`, { model: name, ...config }, { workflowId: `history-${name}` });
}

function decided(
  turn: ScriptedTurn,
  decide: (agents: AgentClient, id: string) => Promise<unknown>,
  config: AgentConfig = {},
): Scenario {
  return async (agents, model, name) => {
    const handle = await run(agents, model, name, [turn, { answer: 'done' }], config);
    await waitForPending({ agents }, handle.workflowId);
    await decide(agents, handle.workflowId);
    await handle.result();
    return [handle.workflowId];
  };
}

/**
 * A model that replies like real servers: calls without any text, and a context window (3,000 tokens)
 * it enforces with vLLM's 400, which the run learns from and compacts for.
 */
function realModel(): ScriptedResponder {
  let reads = 0;
  return (request) => {
    const tokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    if (tokens > 3000)
      return {
        status: 400,
        errorMessage: `This model's maximum context length is 3000 tokens. However, you requested ${tokens} tokens.`,
      };
    if (String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER))
      return { content: 'Read the texts; filler.' };
    reads += 1;
    return reads > 4
      ? { answer: 'All filler.' }
      : { toolCalls: [{ name: 'bulk_text', args: { kb: 4, fill: 'abcd'[reads - 1] } }] };
  };
}

const scenarios: Record<string, Scenario> = {
  'real-models': async (agents, model, name) => [
    (await (await run(agents, model, name, realModel(), {})).result()).workflowId,
  ],
  success: async (agents, model, name) => [
    (await (await run(agents, model, name, [calc('6*7'), { answer: '42' }])).result()).workflowId,
  ],
  approve: decided(remove('a'), (agents, id) => agents.handle(id).approve('c1-1')),
  always: decided(remove('b'), (agents, id) => agents.handle(id).approve('c1-1', { always: true })),
  reject: decided(remove('c'), (agents, id) => agents.handle(id).reject('c1-1', 'keep it')),
  edit: decided(remove('d'), (agents, id) => agents.handle(id).edit('c1-1', { id: 'd2' })),
  respond: decided(remove('e'), (agents, id) => agents.handle(id).respond('c1-1', 'already gone')),
  // One reply with three calls that need confirmation, decided in another order than the model made them.
  'parallel-decisions': async (agents, model, name) => {
    const calls = ['f', 'g', 'h'].map((id) => ({ name: 'delete_record', args: { id } }));
    const handle = await run(agents, model, name, [{ thought, toolCalls: calls }, { answer: 'done' }]);
    await waitForPending({ agents }, handle.workflowId, { approvals: 3 });
    await agents.handle(handle.workflowId).approve('c1-2');
    await agents.handle(handle.workflowId).edit('c1-3', { id: 'h2' });
    await agents.handle(handle.workflowId).reject('c1-1', 'keep f');
    await handle.result();
    return [handle.workflowId];
  },
  // limits.onReached 'ask': the iteration limit becomes a request, raised by a named reviewer; the raise crosses a hand-over.
  'budget-raise': async (agents, model, name) => {
    const handle = await run(agents, model, name, [calc('1'), calc('2'), calc('3'), { answer: 'three' }], {
      limits: { maxIterations: 1, onReached: 'ask' },
      history: { maxStepsPerRun: 2 },
    });
    for (let attempt = 0; attempt < 150 && !(await agents.handle(handle.workflowId).getPending()).budget; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await agents.handle(handle.workflowId).raiseBudget(5);
    await handle.result();
    return [handle.workflowId];
  },
  clarification: async (agents, model, name) => {
    const handle = await run(agents, model, name, [
      { toolCalls: [{ name: 'request_clarification', args: { question: 'Which one?' } }] },
      { answer: 'ok' },
    ]);
    await waitForPending({ agents }, handle.workflowId, { approvals: 0, question: true });
    await agents.handle(handle.workflowId).answer('the first');
    await handle.result();
    return [handle.workflowId];
  },
  'continue-as-new': async (agents, model, name) => {
    const handle = await run(agents, model, name, [calc('1'), calc('2'), calc('3'), calc('4'), { answer: 'four' }], {
      history: { maxStepsPerRun: 2 },
    });
    await handle.result();
    return [handle.workflowId];
  },
  // A hand-over, and a live event consumer who follows the run.
  'streamed-handover': async (agents, model, name) => {
    const handle = await run(agents, model, name, [calc('1'), calc('2'), calc('3'), { answer: 'three' }], {
      history: { maxStepsPerRun: 2 },
    });
    let events = 0;
    for await (const event of agents.handle(handle.workflowId).events()) events += event.type === 'gap' ? 0 : 1;
    await handle.result();
    if (events === 0) throw new Error('the consumer saw no events');
    return [handle.workflowId];
  },
  subagent: async (agents, model, name) => {
    let parent = 0;
    const responder: ScriptedResponder = (request) => {
      if (String(request.messages[0]?.content).startsWith('Helper')) return { answer: 'helped' };
      parent += 1;
      return parent === 1
        ? { thought, toolCalls: [{ name: 'delegate', args: { agent: 'helper', task: 'help' } }] }
        : { answer: 'done' };
    };
    const handle = await run(agents, model, name, responder, {
      subagents: { helper: { description: 'helps', systemPrompt: 'Helper: be brief.' } },
    });
    await handle.result();
    return [handle.workflowId, `${handle.workflowId}/c1-1-helper`];
  },
  cancellation: async (agents, model, name) => {
    const handle = await run(agents, model, name, [{ thought, toolCalls: [{ name: 'wait_forever', args: {} }] }]);
    for (let attempt = 0; attempt < 100 && !(await handle.getStatus()).runningTools.length; attempt++)
      await new Promise((r) => setTimeout(r, 100));
    await handle.cancel();
    await handle.result();
    return [handle.workflowId];
  },
  timeout: async (agents, model, name) => {
    const handle = await run(
      agents,
      model,
      name,
      [{ thought, toolCalls: [{ name: 'wait_forever', args: {} }] }, { answer: 'timed out' }],
      { limits: { timeoutSeconds: 1 } },
    );
    await handle.result();
    return [handle.workflowId];
  },
  'critic-and-summary': async (agents, model, name) => {
    let calls = 0;
    const responder: ScriptedResponder = (request) => {
      const system = String(request.messages[0]?.content);
      if (system.startsWith(CRITIC_MARKER))
        return { content: '{"decision":"CONTINUE","reasoning":"enough","confidence":0.9}' };
      if (system.startsWith(SUMMARIZER_MARKER)) return { content: 'summary' };
      calls += 1;
      return calls === 1 ? calc('2+2') : { answer: '4' };
    };
    const handle = await run(agents, model, name, responder, { critic: true, history: { summaryEvery: 1 } });
    await handle.result();
    return [handle.workflowId];
  },
};

/** The scenarios named on the command line (all when none is), refusing unknown names before anything starts. */
function chosenScenarios(names: string[]): Array<[string, Scenario]> {
  if (names.length === 0) return Object.entries(scenarios);
  const unknown = names.filter((name) => !(name in scenarios));
  if (unknown.length > 0) {
    console.error(`Unknown scenarios: ${unknown.join(', ')} (known: ${Object.keys(scenarios).join(', ')})`);
    process.exit(2);
  }
  return names.map((name) => [name, scenarios[name] as Scenario]);
}

async function main(): Promise<void> {
  const chosen = chosenScenarios(process.argv.slice(2));
  const stack = await startLocalStack({
    taskQueue: 'record-histories',
    registry: new ToolRegistry([...createBuiltinTools({ root: process.cwd() }), ...createTestTools()]),
  });
  const { model, client, agents } = stack;
  try {
    for (const [name, scenario] of chosen) {
      const workflowIds = await scenario(agents, model, name);
      let index = 0;
      for (const workflowId of workflowIds) {
        for (const runId of await chainRunIds(client, workflowId)) {
          const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
          index += 1;
          const file = path.join(OUT, `${name}${index > 1 ? `-${index}` : ''}.json`);
          await writeFile(file, historyToText(workflowId, history));
          console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
        }
      }
    }
  } finally {
    await stack.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
