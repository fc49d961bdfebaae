import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it, vi } from 'vitest';
import { formatEvent } from '../../src/client/event-printer';
import { toolProgressSignal } from '../../src/shared/messages';
import { AgentClient } from '../../src/client/agent-client';
import { eventsOfType, firstEvent } from '../support/run-events';
import { useHarness, waitForPending } from '../support/harness';

/**
 * The reference server the MCP project publishes (`@modelcontextprotocol/server-everything`, pinned in
 * devDependencies): each of its tools exercises one part of the protocol against our client, over stdio.
 */
const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const root = mkdtempSync(path.join(os.tmpdir(), 'dra-mcp-root-'));
const harness = useHarness({
  toolsRoot: root,
  mcpServers: {
    everything: {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      roots: true,
      sampling: true,
      elicitation: true,
    },
    // The same server with the other policies: its forms declined at once, asking no one; its sampling asked first.
    guarded: { command: process.execPath, args: [EVERYTHING, 'stdio'], elicitation: 'decline', sampling: 'ask' },
  },
});

const thought = 'The MCP server has a tool for exactly this, so I call it.';

describe('against the reference MCP server (server-everything)', () => {
  it("offers the worker's file-tools folder as the client's roots, which get-roots-list reports", async () => {
    // The worker's MCP log lines go to console.warn (the harness gives the plugin no logger of its own).
    const warned = vi.spyOn(console, 'warn');
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'everything__get-roots-list', args: {} }] }, { answer: 'Listed.' }],
      'Which folders may the server see?',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('Listed.');
    // Without the roots capability the server does not even register the tool: the run would see no such tool.
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain(pathToFileURL(root).href);
    // The server's log notification about it reached the worker's log.
    expect(warned.mock.calls.map(([line]) => String(line))).toContainEqual(
      'MCP server everything (everything-server): info: Roots updated: 1 root(s) received from client',
    );
    warned.mockRestore();
  });

  it("sends a long tool's progress notifications with the activity's heartbeat and as the run's events", async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__trigger-long-running-operation', args: { duration: 4, steps: 4 } }],
        },
        { answer: 'Done after four steps.' },
      ],
      'Run the long operation.',
    );
    const handle = harness.client.workflow.getHandle(run.workflowId);
    let seen: unknown;
    for (let waited = 0; waited < 20_000 && seen === undefined; waited += 200) {
      const { raw } = await handle.describe();
      const details = raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
      // A heartbeat before the first progress notification carries no details.
      if (details) seen = defaultPayloadConverter.fromPayload(details);
      if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { progress, total } = (seen ?? {}) as { progress?: unknown; total?: unknown };
    expect([typeof progress, total]).toEqual(['number', 4]);
    // Anyone may signal a run: a report for a call that is not running is dropped.
    await handle.signal(toolProgressSignal, { callId: 'c9-9', progress: 1, message: 'forged' });
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('Long running operation completed. Duration: 4 seconds');
    // The run's events have it too: the first report at once, then at most one every 5 s (none more in 4 s).
    const reported = await eventsOfType(run, 'tool_progress');
    expect(reported).toEqual([
      expect.objectContaining({
        callId: 'c1-1',
        tool: 'everything__trigger-long-running-operation',
        status: 'working',
        progress: 1,
        total: 4,
      }),
    ]);
  });

  it("answers a sampling request with the run's model, as a model call of the run, and makes the call again", async () => {
    const sampling = { prompt: 'a haiku about queues', maxTokens: 50 };
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__trigger-sampling-request', args: sampling }] },
        { answer: 'Queues wait in line, patient as stone.' }, // what the run's model writes for the server
        { answer: 'The server got its haiku.' },
      ],
      'Let the server ask for a haiku.',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('The server got its haiku.');
    // The call was made again with the answer, and the server's result carries it.
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('LLM sampling result');
    expect(result.trace.steps[0]?.observation).toContain('Queues wait in line, patient as stone.');
    // The run's model got the request as the server wrote it, with no tools: a helper call, not a step.
    const asked = harness.model.requests(run.modelName)[1];
    expect(asked?.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: 'Resource trigger-sampling-request context: a haiku about queues' },
    ]);
    expect(asked?.tools).toBeUndefined();
    // The run's ledger has it as a model call of its own kind, between the two steps' calls.
    expect(result.trace.cost?.calls.map((call) => call.kind)).toEqual(['think', 'sample', 'think']);
  });

  it("asks a server's form of a person as the run's question, across a worker restart, then makes the call again", async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request', args: {} }] },
        { answer: 'The form is filled in.' },
      ],
      'Fill in the server form.',
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    expect(question?.question).toMatch(
      /^everything \(a call of everything__trigger-elicitation-request\) asks: Please provide inputs for the following fields:\nAnswer with JSON matching \{.*"required":\["name"\].*\}, or "decline" or "cancel"\.$/s,
    );
    // Nothing is held in a worker while the person fills it in: the worker that asked is gone (and its MCP session
    // with it) before the answer comes, and a new one takes it up from the run's history.
    await harness.restartWorker();
    await run.answer(JSON.stringify({ name: 'Ada Lovelace', check: true, integer: 7 }), question?.callId);
    const result = await run.result();
    expect(result.finalAnswer).toBe('The form is filled in.');
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('- Name: Ada Lovelace');
    expect(result.trace.steps[0]?.observation).toContain('- Favorite Integer: 7');
  });

  it("only the tool's approvers may fill in its server's form; anyone may decline it", async () => {
    const tool = 'everything__trigger-elicitation-request';
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: tool, args: {} }] }, { answer: 'Filled.' }],
      'Form.',
      {
        approvals: { approvers: { [tool]: ['role:ops'] } },
      },
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    expect(question).toMatchObject({
      tool,
      approvers: ['role:ops'],
      form: { server: 'everything', message: 'Please provide inputs for the following fields:' },
    });
    expect(question?.form?.schema).toMatchObject({ type: 'object', required: ['name'] });
    const bob = new AgentClient({ client: harness.client, identity: 'bob', channel: 'client' });
    await expect(bob.handle(run.workflowId).answer('{"name":"Bob"}', question?.callId)).rejects.toMatchObject({
      reason: 'not_allowed',
      message: `"bob" may not answer ${question?.callId}; approvers: role:ops`,
    });
    const ops = new AgentClient({ client: harness.client, identity: 'olga', roles: ['ops'], channel: 'client' });
    await ops.handle(run.workflowId).answer('{"name":"Olga"}', question?.callId);
    expect((await run.result()).trace.steps[0]?.observation).toContain('- Name: Olga');

    // Declining can only keep something from happening: anyone may.
    const again = await harness.start(
      [{ thought, toolCalls: [{ name: tool, args: {} }] }, { answer: 'No.' }],
      'Form.',
      {
        approvals: { approvers: { [tool]: ['role:ops'] } },
      },
    );
    const asked = await waitForPending(harness, again.workflowId, { question: true });
    await bob.handle(again.workflowId).answer('decline', asked.question?.callId);
    expect((await again.result()).trace.steps[0]?.observation).toContain('User declined');
  });

  it("a server configured with elicitation: 'decline' gets every form declined without a question", async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'guarded__trigger-elicitation-request', args: {} }] }, { answer: 'Fine.' }],
      'Offer the form to nobody.',
    );
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('User declined to provide the requested information.');
    const asked = await eventsOfType(run, 'clarification_asked');
    expect(asked).toEqual([]);
  });

  it('asks a person to open a link (URL mode), by request and by the -32042 error, and the call goes on', async () => {
    const tool = 'everything__trigger-url-elicitation';
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: tool, args: { url: 'https://example.com/sign-in', message: 'Sign in.' } }] },
        { thought, toolCalls: [{ name: tool, args: { url: 'https://example.com/pay', errorPath: true } }] },
        { answer: 'Both links done.' },
      ],
      'Sign in, then pay.',
    );
    const first = await waitForPending(harness, run.workflowId, { question: true });
    expect(first.question?.question).toBe(
      `everything (a call of ${tool}) asks you to open https://example.com/sign-in: Sign in.\n` +
        'Answer "accept" once you have, or "decline" or "cancel".',
    );
    expect(first.question?.tool).toBe(tool);
    expect(first.question?.form).toEqual({
      server: 'everything',
      message: 'Sign in.',
      url: 'https://example.com/sign-in',
    });
    await run.answer('accept', first.question?.callId);
    // The second call is refused until a prerequisite link is opened (-32042), then made again, which asks its own.
    const prerequisite = await waitForPending(harness, run.workflowId, { question: true });
    expect(prerequisite.question?.form?.url).toBe('https://modelcontextprotocol.io/');
    await run.answer('accept', prerequisite.question?.callId);
    const own = await waitForPending(harness, run.workflowId, { question: true });
    expect(own.question?.form?.url).toBe('https://example.com/pay');
    await run.answer('accept', own.question?.callId);
    const result = await run.result();
    expect(result.trace.steps.map((step) => step.isError)).toEqual([false, false, undefined]);
    expect(result.trace.steps[0]?.observation).toContain('User completed the URL elicitation flow');
    expect(result.trace.steps[1]?.observation).toContain('URL: https://example.com/pay');
  });

  it('a link that is not http(s) is refused to the server, never put in front of a person', async () => {
    const args = { url: 'javascript:alert(1)', message: 'Click me.' };
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'everything__trigger-url-elicitation', args }] }, { answer: 'Refused.' }],
      'Open it.',
    );
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(true);
    expect(result.trace.steps[0]?.observation).toContain('an elicitation URL must be http(s)');
    const asked = await eventsOfType(run, 'clarification_asked');
    expect(asked).toEqual([]);
  });

  it("with sampling: 'ask' a person lets the request through first, seeing what the server asks", async () => {
    const sampling = { name: 'guarded__trigger-sampling-request', args: { prompt: 'a word', maxTokens: 5 } };
    const run = await harness.start(
      [
        { thought, toolCalls: [sampling] },
        { answer: 'Word.' },
        { thought, toolCalls: [sampling] },
        { answer: 'Done.' },
      ],
      'Sample twice.',
    );
    const first = await waitForPending(harness, run.workflowId, { question: true });
    expect(first.question?.question).toBe(
      "guarded (a call of guarded__trigger-sampling-request) asks the run's model to write (at most 5 tokens), from:\n" +
        'system: You are a helpful test server.\nuser: Resource trigger-sampling-request context: a word\n' +
        'Answer "accept" to let it, or "decline".',
    );
    await run.answer('accept', first.question?.callId);
    const second = await waitForPending(harness, run.workflowId, { question: true });
    await run.answer('decline', second.question?.callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('Word.');
    expect(result.trace.steps[1]?.isError).toBe(true);
    expect(result.trace.steps[1]?.observation).toContain("guarded's request for the run's model to write was declined");
    // Only the accepted request reached the model.
    expect(result.trace.cost?.calls.map((call) => call.kind)).toEqual(['think', 'sample', 'think', 'think']);
  });

  it('a declined form goes back to the server as declined', async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request', args: {} }] },
        { answer: 'Declined.' },
      ],
      'Offer the form, then decline it.',
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    await run.answer('decline', question?.callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('User declined to provide the requested information.');
  });

  it('waits on a tool the server runs as a task with workflow timers, its stages as tool_progress events', async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__simulate-research-query', args: { topic: 'durable queues' } }] },
        { answer: 'Researched.' },
      ],
      'Research durable queues.',
    );
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('# Research Report: durable queues');
    const progress = await eventsOfType(run, 'tool_progress');
    expect(progress[0]).toMatchObject({
      tool: 'everything__simulate-research-query',
      status: 'working',
      message: 'Gathering sources...',
    });
    expect(progress.map((event) => event.message)).toContain('Generating report...');
    // The CLI's live trace and the inbox show each as a line of its own.
    expect(formatEvent(progress[0]!)).toBe('           Progress (c1-1): working: Gathering sources...');
    // The waits are the workflow's own timers, a second each as the server suggests: no activity was held meanwhile.
    const { events } = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    const timers = (events ?? []).flatMap((event) => event.timerStartedEventAttributes ?? []);
    expect(timers.length).toBeGreaterThanOrEqual(2);
    expect(timers.map((timer) => Number(timer.startToFireTimeout?.seconds))).toEqual(timers.map(() => 1));
  });

  it("asks a task's question (input_required) of a person, and the task goes on with the answer", async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__simulate-research-query', args: { topic: 'python', ambiguous: true } }],
        },
        { answer: 'Researched the snake.' },
      ],
      'Research python.',
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    expect(question?.question).toMatch(
      /^everything \(a call of everything__simulate-research-query\) asks: The research query "python" could have multiple interpretations/,
    );
    // Its deadline is the worker's hold on the server's waiting request (10 minutes), not the approvals timeout (24 h).
    expect(Date.parse(question?.deadline ?? '') - Date.parse(question?.requestedAt ?? '')).toBe(10 * 60_000);
    await run.answer(JSON.stringify({ interpretation: 'snake' }), question?.callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('# Research Report: python (snake)');
  });

  it("two runs' tasks asking the same question on one worker each get their own person's answer", async () => {
    const research = { name: 'everything__simulate-research-query', args: { topic: 'python', ambiguous: true } };
    const runs = await Promise.all(
      ['snake', 'comedy'].map((pick) =>
        harness.start([{ thought, toolCalls: [research] }, { answer: `Researched the ${pick}.` }], 'Research python.'),
      ),
    );
    const questions = await Promise.all(runs.map((run) => waitForPending(harness, run.workflowId, { question: true })));
    // The same form from the same server: the worker holds both requests, each for its own run.
    expect(questions[0]?.question?.form).toEqual(questions[1]?.question?.form);
    await runs[1]!.answer(JSON.stringify({ interpretation: 'comedy' }), questions[1]?.question?.callId);
    await runs[0]!.answer(JSON.stringify({ interpretation: 'snake' }), questions[0]?.question?.callId);
    const results = await Promise.all(runs.map((run) => run.result()));
    expect(results[0]?.trace.steps[0]?.observation).toContain('# Research Report: python (snake)');
    expect(results[1]?.trace.steps[0]?.observation).toContain('# Research Report: python (comedy)');
  });

  it("a run cancelled while a task runs cancels the task; a stdio server's task ends with its worker", async () => {
    const research = { name: 'everything__simulate-research-query', args: { topic: 'cancelling' } };
    const cancelled = await harness.start([{ thought, toolCalls: [research] }, { answer: 'never' }], 'Research.');
    await firstEvent(cancelled, 'tool_progress');
    await cancelled.cancel();
    expect((await cancelled.result()).terminationReason).toBe('cancelled');
    const { events } = await harness.client.workflow.getHandle(cancelled.workflowId).fetchHistory();
    const completions = (events ?? []).flatMap((event) => {
      const payload = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
      return payload ? [JSON.stringify(defaultPayloadConverter.fromPayload(payload))] : [];
    });
    expect(completions.at(-1)).toMatch(/task [\w-]+ cancelled/);

    const lost = await harness.start([{ thought, toolCalls: [research] }, { answer: 'Lost it.' }], 'Research.');
    await firstEvent(lost, 'tool_progress');
    await harness.restartWorker();
    const result = await lost.result();
    expect(result.trace.steps[0]?.isError).toBe(true);
    expect(result.trace.steps[0]?.observation).toMatch(/MCP server everything no longer knows task .*over stdio/);
  });

  it("serves a sampling request the server polls as a task of the client's, keeping the call going meanwhile", async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__trigger-sampling-request-async', args: { prompt: 'a limerick' } }],
        },
        // The run's model takes its time: the server polls the client's task meanwhile.
        { answer: 'A queue in Peru grew and grew.', delayMs: 2_500 },
        { answer: 'The server got its limerick.' },
      ],
      'Let the server ask for a limerick, as a task.',
    );
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(false);
    const report = result.trace.steps[0]?.observation ?? '';
    expect(report).toContain('[COMPLETED] Async sampling completed!');
    expect(report).toContain('A queue in Peru grew and grew.');
    // The first call saw the answer through: made again, the server would have found its task completed at once.
    expect(report).toMatch(/Poll 1: working\n/);
    expect(report).toMatch(/Poll \d+: completed/);
    expect(result.trace.cost?.calls.map((call) => call.kind)).toEqual(['think', 'sample', 'think']);
  });

  it("asks a form the server polls as a task of the client's, and the answer reaches it, on this worker or another", async () => {
    const tool = { name: 'everything__trigger-elicitation-request-async', args: {} };
    const answer = JSON.stringify({ name: 'Grace Hopper', favoriteColor: 'blue', agreeToTerms: true });
    const kept = await harness.start([{ thought, toolCalls: [tool] }, { answer: 'Answered.' }], 'Fill in the form.');
    const first = await waitForPending(harness, kept.workflowId, { question: true });
    expect(first.question?.question).toMatch(
      /asks: Please provide inputs for the following fields \(async task demo\)/,
    );
    // The person takes a moment: the server polls the client's task each second meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await kept.answer(answer, first.question?.callId);
    const report = (await kept.result()).trace.steps[0]?.observation ?? '';
    expect(report).toContain('- Name: Grace Hopper');
    // The server polled the client's task while the person answered, and the call went on with the answer.
    expect(report).toMatch(/Poll 1: input_required\n(.|\n)*Poll \d+: completed\n/);

    // A worker restarted meanwhile ends the first call (and the stdio server); the call made again with the answer
    // gets it at once, in a task already completed.
    const moved = await harness.start([{ thought, toolCalls: [tool] }, { answer: 'Answered.' }], 'Fill in the form.');
    const second = await waitForPending(harness, moved.workflowId, { question: true });
    await harness.restartWorker();
    await moved.answer(answer, second.question?.callId);
    const again = (await moved.result()).trace.steps[0]?.observation ?? '';
    expect(again).toContain('- Name: Grace Hopper');
    // Its task came back completed: the server had nothing to poll.
    expect(again).toMatch(/Task created: \w+\n\n/);
    expect(again).not.toMatch(/Poll \d+:/);
  });

  it('refuses a request sent as a task when it cannot tell the call of it, with the reason and no task', async () => {
    // Two calls of one stdio server at once: a request names no call, so neither is asked of the run.
    const tool = { name: 'everything__trigger-elicitation-request-async', args: {} };
    const run = await harness.start(
      [{ thought, toolCalls: [tool, { ...tool, id: 'second' }] }, { answer: 'Both refused.' }],
      'Fill in two forms at once.',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('Both refused.');
    for (const step of result.trace.steps.slice(0, 2)) {
      expect(step.isError).toBe(true);
      expect(step.observation).toMatch(/elicitation refused: several calls of its tools are running/);
    }
  });
});
