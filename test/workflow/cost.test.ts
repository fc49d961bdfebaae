import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { chainEngineActions, engineActionsTotal } from '../../src/replay';
import { decideSignal, getTraceQuery } from '../../src/shared/messages';
import { formatUsd, type RunCost } from '../../src/shared/cost';
import { costReport } from '../../src/shared/cost-report';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { z } from 'zod';
import { startInbox } from '../../src/inbox';
import { defineTool } from '../../src/worker/tools/define-tool';
import { RESEARCHER, researcherSubagents } from '../support/delegation';
import { useHarness, waitForPending } from '../support/harness';
import { ForkRefusedError } from '../../src/client/fork';
import { waitForBudget } from '../support/pending';
import { ALICE_TOKEN, call, PEOPLE } from '../inbox/support';

// Every scripted run's model is `scenario-<uuid>`: the prefix entry prices them all.
const PRICE = { input: 2, cachedInput: 0.5, output: 8 };

/** Attempts per idempotency key: the first attempt of each call fails, the second succeeds. */
const attempts = new Map<string, number>();
const flaky = defineTool({
  name: 'flaky_lookup',
  description: 'Looks a value up; the upstream times out on the first try.',
  schema: z.object({ key: z.string() }),
  // A remote activity: its retry is an ActivityTaskStarted attempt the history shows (a local one's is in a marker).
  local: false,
  retry: { maximumAttempts: 2, initialInterval: '300ms' },
  retryableErrors: [/timed out/],
  handler: ({ key }, { idempotencyKey }) => {
    const attempt = (attempts.get(idempotencyKey) ?? 0) + 1;
    attempts.set(idempotencyKey, attempt);
    if (attempt === 1) throw new Error('upstream timed out');
    return `value of ${key}`;
  },
});

const harness = useHarness({ prices: { 'scenario-*': PRICE }, tools: [flaky] });

/** The billed actions of every run of a workflow's chain, summed. */
async function chainBilledActions(workflowId: string, client = harness.client): Promise<number> {
  return engineActionsTotal(await chainEngineActions(client, workflowId));
}

const usd = (prompt: number, cached: number, completion: number) =>
  ((prompt - cached) * PRICE.input + cached * PRICE.cachedInput + completion * PRICE.output) / 1_000_000;

const calc = (expression: string, usage: ScriptedTurn['usage']): ScriptedTurn => ({
  thought: 'The calculator gives the exact value, so I call it.',
  toolCalls: [{ name: 'calculator', args: { expression } }],
  usage,
});

/** A parent whose first reply delegates `count` tasks to the researcher ($0.00028), then answers. */
const delegatingParent = (count: number, thought: string): ScriptedTurn[] => [
  {
    thought,
    toolCalls: Array.from({ length: count }, () => ({
      name: 'delegate',
      args: { agent: 'researcher', task: 'Add up the numbers.' },
    })),
    usage: { promptTokens: 100, completionTokens: 10 },
  },
  { answer: 'Done.', usage: { promptTokens: 100, completionTokens: 10 } },
];
/** Whether a request is the researcher subagent's (its system prompt), not its parent's. */
const isChild = (request: RecordedRequest) => String(request.messages[0]?.content).startsWith(RESEARCHER);

describe('what a run cost', () => {
  it('trace.cost has the tokens the model reported, their price, and the engine actions its history shows', async () => {
    const run = await harness.start(
      [
        calc('1+1', { promptTokens: 1000, completionTokens: 100, cachedPromptTokens: 400 }),
        calc('2+2', { promptTokens: 1200, completionTokens: 120 }),
        { answer: 'Four.', usage: { promptTokens: 1500, completionTokens: 50 } },
      ],
      'q',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('Four.');
    const cost = result.trace.cost!;
    expect(cost.usage).toEqual({
      promptTokens: 3700,
      completionTokens: 270,
      totalTokens: 3970,
      cachedPromptTokens: 400,
    });
    expect(cost.usd).toBeCloseTo(usd(1000, 400, 100) + usd(1200, 0, 120) + usd(1500, 0, 50), 10);
    expect(cost.usd).toBeCloseTo(0.00896, 10);
    expect(cost.unpricedTokens).toBe(0);
    expect(cost.models).toEqual({ [run.modelName]: PRICE });
    expect(cost.calls.map((call) => [call.kind, call.iteration, call.usage.totalTokens, call.attempts])).toEqual([
      ['think', 1, 1100, 1],
      ['think', 2, 1320, 1],
      ['think', 3, 1550, 1],
    ]);
    expect(cost.tools.calculator?.calls).toBe(2);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
    // Three model calls scheduled as activities (the calculator ran ahead inside them), one start, prepareRun.
    expect(cost.engineActions).toMatchObject({ workflowStarts: 1, activities: 3, localActivityBatches: 1 });
    // The closed run's trace, read from history with no worker involved, says the same.
    expect((await harness.agents.handle(run.workflowId).getTrace()).cost).toEqual(cost);
    // The Temporal UI's current details show the total beside the status.
    const metadata = await harness.client.workflow
      .getHandle(run.workflowId)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(
      `**Cost:** $0.00896 · 3970 tokens · ${cost.engineActionsTotal} engine actions`,
    );
  });

  it('a followed run counts what its follower sent, and the terminated event carries the total', async () => {
    const run = await harness.start(
      [
        calc('3*3', { promptTokens: 100, completionTokens: 10 }),
        { answer: 'Nine.', usage: { promptTokens: 100, completionTokens: 10 } },
      ],
      'q',
    );
    const events: Array<{ type: string }> = [];
    for await (const event of run.events()) events.push(event);
    const result = await run.result();
    const cost = result.trace.cost!;
    // The follower asks the run to publish its events (one signal), or waits by update when it asked too late.
    expect(cost.engineActions.signals + cost.engineActions.updates).toBeGreaterThan(0);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
    const terminated = events.find((event) => event.type === 'terminated');
    expect(terminated).toMatchObject({ cost: { tokens: 220, usd: cost.usd } });
  });

  it('retries are counted as engine actions and as waste: a retried paid model call and a retried tool call', async () => {
    const run = await harness.start(
      [
        { status: 500 }, // the first attempt of the first call fails; Temporal retries it
        {
          thought: 'The lookup tool has the value I need.',
          toolCalls: [{ name: 'flaky_lookup', args: { key: 'k' } }],
          usage: { promptTokens: 100, completionTokens: 10 },
        },
        { answer: 'Found it.', usage: { promptTokens: 100, completionTokens: 10 } },
      ],
      'q',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('Found it.');
    const cost = result.trace.cost!;
    expect(cost.calls.map((call) => call.attempts)).toEqual([2, 1]);
    expect(cost.wasted).toEqual({
      retriedModelCalls: 1,
      modelRetries: 1,
      retriedToolCalls: 1,
      toolRetries: 1,
      discardedRunAheadResults: 0,
    });
    expect(cost.engineActions.activityRetries).toBe(2);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
    // Workflow time from scheduling to result: the retry's 300 ms back-off is in it.
    expect(cost.tools.flaky_lookup).toMatchObject({ calls: 1, retries: 1 });
    expect(cost.tools.flaky_lookup!.ms).toBeGreaterThanOrEqual(300);
  });

  it('a streamed run counts each batch of deltas as the signal it is', async () => {
    const run = await harness.start(
      [
        {
          thought: 'The calculator gives the exact value, so I call it now.',
          toolCalls: [{ name: 'calculator', args: { expression: '7*7' } }],
          streamChunks: 4,
          chunkDelayMs: 250,
          usage: { promptTokens: 100, completionTokens: 10 },
        },
        { answer: 'Forty-nine.', usage: { promptTokens: 100, completionTokens: 10 } },
      ],
      'q',
      { modelSettings: { stream: true } },
    );
    const cost = (await run.result()).trace.cost!;
    expect(cost.engineActions.signals).toBeGreaterThan(0);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
  });

  it('an approval: its wait is a timer, the decision an update, and one sent as a signal a signal', async () => {
    const run = await harness.start(
      [
        calc('8*8', { promptTokens: 100, completionTokens: 10 }),
        calc('9*9', { promptTokens: 100, completionTokens: 10 }),
        { answer: 'Done.', usage: { promptTokens: 100, completionTokens: 10 } },
      ],
      'q',
      { approvals: { require: ['calculator'] } },
    );
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    await harness.client.workflow
      .getHandle(run.workflowId)
      .signal(decideSignal, { callId: 'c2-1', decision: 'approve', identity: 'ops' });
    const cost = (await run.result()).trace.cost!;
    expect(cost.engineActions).toMatchObject({ timers: 2, updates: 1, signals: 1 });
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
  });

  it('the forced final answer is filed as what it is, not as another step (issue 50, F5)', async () => {
    const run = await harness.start(
      [
        calc('1+1', { promptTokens: 1000, completionTokens: 100 }),
        { answer: 'Stopped after one step: 2.', usage: { promptTokens: 1200, completionTokens: 30 } },
      ],
      'q',
      { limits: { maxIterations: 1 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('max_iterations');
    const cost = result.trace.cost!;
    expect(cost.calls.map((call) => [call.kind, call.iteration])).toEqual([
      ['think', 1],
      ['final_answer', 1],
    ]);
    // What `durable-react-agent cost` and the inbox print (before: a second "think · step 1").
    expect(costReport(cost).filter((line) => /^ {2}\S.* · /.test(line))).toEqual([
      `  think · step 1: 1100 tokens, ${formatUsd(usd(1000, 0, 100))}`,
      `  forced final answer · after step 1: 1230 tokens, ${formatUsd(usd(1200, 0, 30))}`,
    ]);
  });

  it('a model with no price shows its tokens and "no price", never $0', async () => {
    const model = `unpriced-${randomUUID()}`;
    harness.model.script(model, [{ answer: 'Hi.', usage: { promptTokens: 10, completionTokens: 5 } }]);
    const handle = await harness.agents.start('q', { model });
    const cost = (await handle.result()).trace.cost!;
    expect(cost).toMatchObject({ usd: null, unpricedTokens: 15, models: { [model]: null } });
    expect(cost.calls[0]).toMatchObject({ model, usd: null });
  });

  it('continue-as-new: the last run reports the whole chain', async () => {
    const turns = [1, 2, 3, 4].map((n) => calc(`${n}+${n}`, { promptTokens: 100, completionTokens: 10 }));
    // Each hand-over may summarise what the next run does not carry: priced like any call.
    const responder: ScriptedResponder = (request: RecordedRequest) => {
      if (String(request.messages[0]?.content).includes('summar'))
        return { content: 'SUMMARY: added numbers.', usage: { promptTokens: 10, completionTokens: 1 } };
      return turns.shift() ?? { answer: 'Done.', usage: { promptTokens: 100, completionTokens: 10 } };
    };
    const run = await harness.start(responder, 'q', { history: { maxStepsPerRun: 2 } });
    const result = await run.result();
    expect(result.trace.run).toBeGreaterThan(1);
    const cost = result.trace.cost!;
    expect(cost.usage.totalTokens).toBe(result.tokenUsage.totalTokens);
    expect(cost.engineActions.workflowStarts).toBe(result.trace.run);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId));
    expect(cost.tools.calculator?.calls).toBe(4);
    const priced = result.tokenUsage.promptTokens * PRICE.input + result.tokenUsage.completionTokens * PRICE.output;
    expect(cost.usd).toBeCloseTo(priced / 1_000_000, 10);
  });

  it("a subagent's cost is summed into its parent's: tokens, money and the child's actions", async () => {
    const parent: ScriptedTurn[] = [
      {
        thought: 'The researcher can look this up.',
        toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 12 squared?' } }],
        usage: { promptTokens: 100, completionTokens: 10 },
      },
      { answer: '144.', usage: { promptTokens: 100, completionTokens: 10 } },
    ];
    const child: ScriptedTurn[] = [
      calc('12^2', { promptTokens: 50, completionTokens: 5 }),
      { answer: '144', usage: { promptTokens: 50, completionTokens: 5 } },
    ];
    const run = await harness.start((request) => (isChild(request) ? child.shift() : parent.shift())!, 'q', {
      subagents: { researcher: { description: 'looks facts up', systemPrompt: RESEARCHER } },
    });
    const result = await run.result();
    const cost = result.trace.cost!;
    const childId = result.trace.steps[0]!.childWorkflowId!;
    const childCost = (await harness.agents.handle(childId).result()).trace.cost!;
    expect(cost.subagents).toEqual([childId]);
    expect(cost.usage.totalTokens).toBe(220 + 110);
    expect(cost.usd).toBeCloseTo(usd(200, 0, 20) + usd(100, 0, 10), 10);
    expect(childCost.usd).toBeCloseTo(usd(100, 0, 10), 10);
    expect(cost.engineActions.childStarts).toBe(1);
    // The parent's history (its start of the child: 2) and the child's own (no start of its own) add up.
    expect(cost.engineActionsTotal).toBe(
      (await chainBilledActions(run.workflowId)) + (await chainBilledActions(childId)),
    );
    expect(cost.engineActionsTotal).toBe(
      childCost.engineActionsTotal + (cost.engineActionsTotal - childCost.engineActionsTotal),
    );
  });
});

describe('a worker whose model calls are local activities', () => {
  const local = useHarness({ prices: { 'scenario-*': PRICE }, modelCalls: { local: true } });

  it('counts one action per workflow task that ran local activities, as the history records them', async () => {
    const run = await local.start(
      [
        calc('5+5', { promptTokens: 100, completionTokens: 10 }),
        calc('6+6', { promptTokens: 100, completionTokens: 10 }),
        { answer: 'Twelve.', usage: { promptTokens: 100, completionTokens: 10 } },
      ],
      'q',
    );
    const cost = (await run.result()).trace.cost!;
    expect(cost.engineActions.activities).toBe(0); // three thinking calls, the calculator ran ahead in them
    // Local activities do not end the workflow task: a run this short (prepareRun and three calls) usually fits in
    // one, which is then a single action; a slow machine may split it, and the history then shows the same split.
    expect(cost.engineActions.localActivityBatches).toBeGreaterThanOrEqual(1);
    expect(cost.engineActionsTotal).toBe(await chainBilledActions(run.workflowId, local.client));
    expect(cost.usd).toBeCloseTo(3 * usd(100, 0, 10), 10);
  });
});

// The CLI as users run it: the built bin in a child process, reading the closed run from the server.
const CLI = path.resolve(__dirname, '../../dist/cli/main.js');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('durable-react-agent cost', () => {
  it('prints the ledger of a finished run, and the same ledger as JSON with --json', async () => {
    const run = await harness.start(
      [
        calc('6*7', { promptTokens: 1000, completionTokens: 100 }),
        { answer: '42.', usage: { promptTokens: 1000, completionTokens: 100 } },
      ],
      'q',
    );
    const cost = (await run.result()).trace.cost!;
    const printed = await cli(['cost', run.workflowId]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`Total: $0.0056 · 2200 tokens · ${cost.engineActionsTotal} engine actions`);
    expect(printed.stdout).toContain(`Model ${run.modelName}: $2 in / $0.5 cached / $8 out per 1M tokens`);
    expect(printed.stdout).toContain('calculator: 1 call(s)');
    expect(printed.stdout).toMatch(/Engine actions: \d+ = 1 run start\(s\), 2 activities, 1 local-activity task\(s\)/);
    const json = await cli(['cost', run.workflowId, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(cost);
    // `trace` ends with the total too.
    const traced = await cli(['trace', run.workflowId]);
    expect(traced.stdout).toContain(
      `success: 2 iterations, 2200 tokens, $0.0056, ${cost.engineActionsTotal} engine actions`,
    );
    const help = await cli(['cost', '--help']);
    expect(help.stdout).toContain('Usage: durable-react-agent cost    <workflowId> [--json]');
  });
});

describe("the inbox's run page", () => {
  it('shows what the run cost, from its history once it has closed', async () => {
    const run = await harness.start(
      [
        calc('6*7', { promptTokens: 1000, completionTokens: 100 }),
        { answer: '42.', usage: { promptTokens: 1000, completionTokens: 100 } },
      ],
      'q',
    );
    const cost = (await run.result()).trace.cost!;
    const inbox = await startInbox({ client: harness.client, identities: { tokens: PEOPLE } });
    try {
      const page = await call(inbox.url, `/runs/${run.workflowId}`, { token: ALICE_TOKEN, accept: 'text/html' });
      expect(page.text).toContain('<h2>Cost</h2>');
      expect(page.text).toContain(`Total: $0.0056 · 2200 tokens · ${cost.engineActionsTotal} engine actions`);
      expect(page.text).toContain(`Model ${run.modelName}: $2 in / $0.5 cached / $8 out per 1M tokens`);
    } finally {
      await inbox.close();
    }
  });
});

describe('a subagent that fails', () => {
  it('still adds what it spent before failing (the trace its failure attached)', async () => {
    const RESEARCHER = 'You are the failing researcher.';
    const isChild = (request: RecordedRequest) => String(request.messages[0]?.content).startsWith(RESEARCHER);
    const parent: ScriptedTurn[] = [
      {
        thought: 'The researcher can look this up.',
        toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 12 squared?' } }],
        usage: { promptTokens: 100, completionTokens: 10 },
      },
      { answer: 'It failed.', usage: { promptTokens: 100, completionTokens: 10 } },
    ];
    const child: ScriptedTurn[] = [
      calc('12^2', { promptTokens: 50, completionTokens: 5 }),
      { status: 401, errorMessage: 'Incorrect API key provided' },
    ];
    const run = await harness.start((request) => (isChild(request) ? child.shift() : parent.shift())!, 'q', {
      subagents: { researcher: { description: 'looks facts up', systemPrompt: RESEARCHER } },
    });
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(true);
    const cost = result.trace.cost!;
    expect(cost.subagents).toEqual([result.trace.steps[0]!.childWorkflowId]);
    expect(cost.usage.totalTokens).toBe(220 + 55);
    expect(cost.usd).toBeCloseTo(usd(200, 0, 20) + usd(50, 0, 5), 10);
  });
});

describe('limits.cost', () => {
  const turns = (): ScriptedTurn[] => [
    calc('1+1', { promptTokens: 10_000, completionTokens: 1000 }), // 0.02 + 0.008 = $0.028
    calc('2+2', { promptTokens: 10_000, completionTokens: 1000 }),
    { answer: 'Four.', usage: { promptTokens: 10_000, completionTokens: 1000 } },
  ];

  it('stops the run with cost_budget once the next call would pass it', async () => {
    const run = await harness.start(turns(), 'q', { limits: { cost: 0.03 } });
    const result = await run.result();
    expect(result.terminationReason).toBe('cost_budget');
    expect(result.trace.terminationDetail).toMatch(/would pass the cost budget of \$0\.03 \(\$0\.028 spent\)/);
    expect(harness.model.requests(run.modelName).filter((r) => (r.tools?.length ?? 0) > 0)).toHaveLength(1);
  });

  it("with onReached: 'ask' waits for a person; a raise lets it go on and finish", async () => {
    const run = await harness.start(turns(), 'q', { limits: { cost: 0.03, onReached: 'ask' } });
    const budget = await waitForBudget(harness.agents, run.workflowId);
    expect(budget).toMatchObject({
      limit: 'cost_budget',
      current: 0.03,
      suggested: 0.03,
      unit: 'USD',
      question: 'Raise the cost budget from 0.03 to 0.06 USD?',
    });
    expect(await harness.agents.handle(run.workflowId).raiseBudget(0.1)).toMatchObject({
      decision: 'raise',
      newLimit: 0.13,
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Four.');
    expect(result.trace.budgetRequests).toEqual([expect.objectContaining({ limit: 'cost_budget', outcome: 'raise' })]);
    // The wait's timer and the raise's update are engine actions of the run like any other.
    expect(result.trace.cost!.engineActions.updates).toBe(1);
    // Kind by kind, so a difference names what was counted apart from the history.
    expect(result.trace.cost!.engineActions).toEqual(await chainEngineActions(harness.client, run.workflowId));
    // A new worker has the run in no cache: its query replays the history, and the ledger comes out the same.
    await harness.restartWorker();
    const replayed = await harness.client.workflow.getHandle(run.workflowId).query(getTraceQuery);
    expect(replayed.cost).toEqual(result.trace.cost);
  });

  it('money is raised by any amount, the other limits still by whole numbers', async () => {
    const run = await harness.start([calc('1+1', { promptTokens: 10, completionTokens: 1 }), { answer: 'Two.' }], 'q', {
      limits: { maxIterations: 1, onReached: 'ask' },
    });
    await waitForBudget(harness.agents, run.workflowId);
    await expect(harness.agents.handle(run.workflowId).raiseBudget(1.5)).rejects.toMatchObject({
      reason: 'invalid_payload',
      message: 'Invalid budget decision: amount: the iteration limit is raised by a whole number',
    });
    expect(await harness.agents.handle(run.workflowId).raiseBudget(1)).toMatchObject({ newLimit: 2 });
    expect((await run.result()).finalAnswer).toBe('Two.');
  });

  it('a run whose model has no price cannot enforce it: refused at start with one line', async () => {
    const model = `unpriced-${randomUUID()}`;
    const handle = await harness.agents.start('q', { model, limits: { cost: 1 } });
    await expect(handle.result()).rejects.toThrow(
      `limits.cost needs a price for model "${model}": set it in the worker's prices (WORKER_PRICES)`,
    );
  });

  it.each(['constructor', 'toString', '__proto__'])(
    'a model named %j has no price either: refused at start, not priced by Object (issue 45)',
    async (model) => {
      const handle = await harness.agents.start('q', { model, limits: { cost: 1 } });
      await expect(handle.result()).rejects.toThrow(
        `limits.cost needs a price for model "${model}": set it in the worker's prices (WORKER_PRICES)`,
      );
    },
  );

  it('keeps room for the forced final answer, so the run ends within its cap (issue 50, F3)', async () => {
    // Each step costs $0.028 (10,000 prompt tokens, 1,000 completion), the forced answer $0.0208. Before the fix the
    // run took a second step and paid the answer on top: $0.0768 against $0.06.
    const run = await harness.start(
      (request) =>
        request.tools === undefined
          ? { answer: 'Stopped at the cap: 2.', usage: { promptTokens: 10_000, completionTokens: 100 } }
          : calc('1+1', { promptTokens: 10_000, completionTokens: 1000 }),
      'q',
      { limits: { cost: 0.06, maxIterations: 10 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('cost_budget');
    expect(result.trace.cost!.usd).toBeLessThanOrEqual(0.06);
    expect(result.trace.terminationDetail).toMatch(/keeping ~\$[\d.]+ for the final answer/);
    expect(result.finalAnswer).toBe('Stopped at the cap: 2.');
  });

  it('a run stopped at cost_budget is continued with a higher cap, its spend carried (issue 50, F3)', async () => {
    // Keyed on the sums done so far, so the continuation's model picks up where the parent's stopped.
    const sums = ['1+1', '2+2'];
    const run = await harness.start(
      (request) => {
        const done = request.messages.filter((message) => message.role === 'tool').length;
        if (request.tools === undefined) return { answer: `Stopped after ${done} sums.`, usage: { promptTokens: 10 } };
        return done < sums.length
          ? calc(sums[done]!, { promptTokens: 10_000, completionTokens: 1000 })
          : { answer: 'Four.', usage: { promptTokens: 10_000, completionTokens: 1000 } };
      },
      'q',
      { limits: { cost: 0.03 } },
    );
    const parent = await run.result();
    expect(parent.terminationReason).toBe('cost_budget');
    const spent = parent.trace.cost!.usd!;

    // The cap is a total, as the token budget is: it must be raised to go on, whatever the parent left unspent.
    await expect(harness.agents.continue(run.workflowId)).rejects.toThrow(
      `the run spent ${formatUsd(spent)} of its $0.03 cost budget: --cost must be more than $0.03 to continue`,
    );
    await expect(harness.agents.continue(run.workflowId, { cost: 0.03 })).rejects.toThrow(ForkRefusedError);

    const continued = await harness.agents.continue(run.workflowId, { cost: 0.2 });
    const result = await continued.result();
    expect([result.terminationReason, result.finalAnswer]).toEqual(['success', 'Four.']);
    // The continuation's ledger is the chain's: the parent's spend and its own two calls.
    expect(result.trace.cost!.usd).toBeCloseTo(spent + 2 * usd(10_000, 0, 1000), 10);
    expect(result.trace.cost!.usage.totalTokens).toBe(parent.trace.cost!.usage.totalTokens + 2 * 11_000);

    // The parent's spend counts against a continuation's cap: $0.0301 leaves no room for the next prompt and the final
    // answer's reserve over the $0.028 spent, so this one stops before offering the model a tool (uncarried, it took a
    // step: the cap was then all its own).
    const offered = () => harness.model.requests(run.modelName).filter((r) => (r.tools?.length ?? 0) > 0).length;
    const before = offered();
    const tight = await harness.agents.continue(run.workflowId, { cost: 0.0301 });
    expect((await tight.result()).terminationReason).toBe('cost_budget');
    expect(offered()).toBe(before);
  });

  it('holds through a subagent: the child gets what is left as its own cap, and the parent then stops too (T3)', async () => {
    // Each child reply costs $0.028; the parent's first reply $0.00028. Before the fix the child had no cap of its
    // own and spent all twenty replies' worth ($0.56) before its cost reached the parent's ledger.
    const child = Array.from({ length: 20 }, (_, index) =>
      calc(`${index}+1`, { promptTokens: 10_000, completionTokens: 1000 }),
    );
    const parent = delegatingParent(1, 'The researcher can look this up.');
    const run = await harness.start(
      (request) => (isChild(request) ? child.shift() : parent.shift()) ?? { answer: 'out of script' },
      'q',
      { subagents: researcherSubagents, limits: { cost: 0.05 } },
    );
    const result = await run.result();
    const childId = result.trace.steps[0]!.childWorkflowId!;
    const childResult = await harness.agents.handle(childId).result();
    expect(childResult.terminationReason).toBe('cost_budget');
    expect(result.terminationReason).toBe('cost_budget');
    // Past the cap by one reply at most: the child's second reply was refused before it was asked for.
    expect(result.trace.cost!.usd).toBeLessThanOrEqual(0.05 + 0.028);
    expect(20 - child.length).toBe(2);
  });

  it('holds through parallel subagents: delegations of one reply take turns, each handed what is left', async () => {
    // Three delegations in one reply. Before the fix each child got the whole remainder and spent two replies'
    // worth: $0.168 against a $0.05 cap.
    const child = Array.from({ length: 20 }, (_, index) =>
      calc(`${index}+1`, { promptTokens: 10_000, completionTokens: 1000 }),
    );
    const parent = delegatingParent(3, 'Three researchers at once.');
    const run = await harness.start(
      (request) => (isChild(request) ? child.shift() : parent.shift()) ?? { answer: 'out of script' },
      'q',
      { subagents: researcherSubagents, limits: { cost: 0.05 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('cost_budget');
    const [first, second, third] = result.trace.steps;
    expect(first?.childWorkflowId).toBeDefined();
    // The first child spent the cap; the others were not started.
    for (const step of [second, third]) {
      expect(step?.childWorkflowId).toBeUndefined();
      expect(step?.observation).toMatch(/no cost budget is left for a subagent/);
    }
    expect(result.trace.cost!.usd).toBeLessThanOrEqual(0.05 + 0.028);
    expect(20 - child.length).toBe(2);
  });

  it('a terminated subagent, which cannot say what it spent, leaves the next one nothing of its share', async () => {
    const parent = delegatingParent(2, 'Two researchers, one after the other.');
    // The first child's reply never comes in time: it is terminated while it waits.
    const run = await harness.start(
      (request) =>
        isChild(request)
          ? { ...calc('1+1', { promptTokens: 10_000, completionTokens: 1000 }), delayMs: 30_000 }
          : (parent.shift() ?? { answer: 'out of script' }),
      'q',
      { subagents: researcherSubagents, limits: { cost: 0.05 } },
    );
    const first = harness.client.workflow.getHandle(`${run.workflowId}/c1-1-researcher`);
    await expect
      .poll(async () => (await first.describe().catch(() => null))?.status.name, { timeout: 20_000 })
      .toBe('RUNNING');
    await first.terminate('an operator stops it');
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toMatch(/subagent researcher failed/);
    // Before the fix the second child was handed the whole cap again.
    expect(result.trace.steps[1]?.childWorkflowId).toBeUndefined();
    expect(result.trace.steps[1]?.observation).toMatch(/no cost budget is left for a subagent/);
  });

  it("a subagent whose model has no price is refused at start, as the run's own model is", async () => {
    const model = `unpriced-${randomUUID()}`;
    const run = await harness.start([{ answer: 'never asked' }], 'q', {
      limits: { cost: 1 },
      subagents: { researcher: { ...researcherSubagents.researcher, model } },
    });
    await expect(run.result()).rejects.toThrow(
      `limits.cost needs a price for subagent "researcher"'s model "${model}": set it in the worker's prices (WORKER_PRICES)`,
    );
  });
});

export type { RunCost };
