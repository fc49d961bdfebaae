import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { createOpenAIClient } from '../../src/worker';
import { createAgentWorker } from '../../src/worker/create-worker';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { useHarness, waitForPending } from '../support/harness';

const root = mkdtempSync(path.join(os.tmpdir(), 'dra-root-'));
writeFileSync(path.join(root, 'notes.txt'), 'the launch code is 0000\n');
writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(10_000));
const harness = useHarness({ toolsRoot: root });

const thought = 'I need this tool to find the facts the question asks about.';

describe('bad tool calls become observations the model can act on', () => {
  it('tool names that are Object.prototype members are counted like any other unknown tool', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'constructor', args: {} }] },
      {
        thought,
        toolCalls: [
          { name: 'constructor', args: {} },
          { name: '__proto__', args: {} },
        ],
      },
      { answer: 'Done without those tools.' },
    ]);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Done without those tools.');
    expect(result.trace.toolUsage.constructor).toBe(2);
    // JSON text, because an object literal cannot hold an own "__proto__" key to compare against.
    expect(JSON.stringify(result.trace.toolUsage)).toBe('{"constructor":2,"__proto__":1}');
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual([
      'unknown_tool',
      'unknown_tool',
      'unknown_tool',
    ]);
  });

  it('unknown tool, bad JSON, schema mismatch and a throwing tool, then recovery', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'weather', args: { city: 'Lisbon' } }] },
      { thought, toolCalls: [{ name: 'calculator', rawArguments: '{"expression": "1+' }] },
      { thought, toolCalls: [{ name: 'calculator', args: { expr: '1+1' } }] },
      { thought, toolCalls: [{ name: 'explode', args: { reason: 'disk full' } }] },
      { thought, toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }] },
      { answer: 'Recovered: 1+1 = 2.' },
    ]);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Recovered: 1+1 = 2.');

    const observations = result.trace.steps.map((step) => step.observation);
    expect(observations[0]).toMatch(
      /^\[error\] weather\(\{"city":"Lisbon"\}\): unknown tool\. Available tools: .*calculator/,
    );
    expect(observations[1]).toMatch(/^\[error\] calculator\(\{"expression": "1\+\): the arguments are not valid JSON/);
    expect(observations[2]).toMatch(/^\[error\] calculator\(\{"expr":"1\+1"\}\): invalid arguments: .*expression/);
    expect(observations[3]).toBe('[error] explode({"reason":"disk full"}): exploded: disk full');
    expect(result.trace.steps.slice(0, 4).every((step) => step.isError)).toBe(true);
    expect(result.trace.steps[4]).toMatchObject({ isError: false, observationData: { result: 2 } });
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual([
      'unknown_tool',
      'invalid_arguments',
      'invalid_arguments',
      'tool_error',
    ]);

    // Each error reached the model as the tool result of its call.
    const requests = harness.model.requests(run.modelName);
    const lastToolMessage = (index: number) =>
      String(requests[index]?.messages.filter((message) => message.role === 'tool').at(-1)?.content);
    expect(lastToolMessage(1)).toContain('unknown tool');
    expect(lastToolMessage(4)).toContain('exploded: disk full');
  });

  it('file tools refuse paths escaping the root; the calculator refuses code', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'read_file', args: { path: '../../etc/passwd' } }] },
      { thought, toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
      { thought, toolCalls: [{ name: 'calculator', args: { expression: 'process.exit(1)' } }] },
      { answer: 'done' },
    ]);
    const result = await run.result();
    const [escape, inside, code] = result.trace.steps;
    expect(escape?.isError).toBe(true);
    expect(escape?.observation).toContain('outside the allowed root');
    expect(escape?.observation).not.toContain('root:x:0:0');
    expect(inside?.isError).toBe(false);
    expect(inside?.observation).toContain('the launch code is 0000');
    expect(code?.isError).toBe(true);
    expect(code?.observation).toMatch(/^\[error\] calculator\(.*\): .*process/);
    expect(result.terminationReason).toBe('success');
  });

  it('in strict mode (thoughts.require: true) a missing or degenerate thought is sent back and counted', async () => {
    const run = await harness.start(
      [
        { toolCalls: [{ name: 'calculator', args: { expression: '2*3' } }] },
        {
          thought: 'I will use the calculator tool.',
          toolCalls: [{ name: 'calculator', args: { expression: '2*3' } }],
        },
        {
          thought: 'Multiplying 2 by 3 gives the area; the calculator does it exactly.',
          toolCalls: [{ name: 'calculator', args: { expression: '2*3' } }],
        },
        { answer: '6' },
      ],
      'test query',
      { thoughts: { require: true } },
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('6');
    expect(result.trace.rejectedThoughts).toBe(2);
    expect(result.trace.toolUsage).toEqual({ calculator: 1 });
    expect(result.trace.errorHistory.filter((entry) => entry.kind === 'invalid_thought')).toHaveLength(2);
    const second = harness.model.requests(run.modelName)[1];
    expect(JSON.stringify(second?.messages.at(-1))).toContain('Your reply had no thought');
  });

  it('a thought that only restates the action is sent back, even when it is long enough', async () => {
    const call = { name: 'calculator', args: { expression: '17*23' } };
    const run = await harness.start([
      { thought: 'Calling the calculator tool now.', toolCalls: [call] },
      { thought: 'The calculator gives exact results, so I will use it for 17 * 23.', toolCalls: [call] },
      { answer: '391' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('391');
    expect(result.trace.rejectedThoughts).toBe(1);
    expect(result.trace.steps).toHaveLength(2);
    expect(result.trace.steps[0]?.thought).toBe('The calculator gives exact results, so I will use it for 17 * 23.');
    const second = harness.model.requests(run.modelName)[1];
    expect(JSON.stringify(second?.messages.at(-1))).toContain(
      'Your thought \\"Calling the calculator tool now.\\" only names an action.',
    );
  });

  it('malformed output (final_answer without an answer) is fed back, not thrown', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'final_answer', args: { text: 'oops' } }] },
      { thought, toolCalls: [{ name: 'final_answer', args: { answer: 'fixed' } }] },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('fixed');
    expect(result.trace.errorHistory[0]).toMatchObject({ kind: 'malformed_output' });
    expect(result.trace.errorHistory[0]?.message).toContain('final_answer needs {"answer": "..."}');
  });

  it('limits.maxCallsPerTool refuses calls over the cap with an observation', async () => {
    const calc = { thought, toolCalls: [{ name: 'calculator', args: { expression: '5-1' } }] };
    const run = await harness.start(
      [calc, { ...calc, toolCalls: [{ name: 'calculator', args: { expression: '5-2' } }] }, { answer: '4' }],
      'q',
      { limits: { maxCallsPerTool: { calculator: 1 } } },
    );
    const result = await run.result();
    expect(result.trace.steps[1]?.observation).toContain('at most 1 times');
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual(['tool_limit']);
  });

  it('maxCallsPerTool counts only calls that ran: bad JSON and schema refusals leave the slot free', async () => {
    const calc = (args: unknown) => ({ thought, toolCalls: [{ name: 'calculator', args }] });
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'calculator', rawArguments: '{"expression": "6*' }] },
        calc({ expr: '6*7' }),
        calc({ expression: '6*7' }),
        calc({ expression: '6*8' }),
        { answer: '42' },
      ],
      'q',
      { limits: { maxCallsPerTool: { calculator: 1 } } },
    );
    const result = await run.result();
    expect(result.trace.steps[2]).toMatchObject({ isError: false, observationData: { result: 42 } });
    expect(result.trace.steps[3]?.observation).toContain('may call calculator at most 1 times');
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual([
      'invalid_arguments',
      'invalid_arguments',
      'tool_limit',
    ]);
    expect(result.trace.toolUsage).toEqual({ calculator: 4 });
    expect(result.trace.toolRuns).toEqual({ calculator: 1 });
  });

  it('maxCallsPerTool: parallel calls of one reply cannot overshoot the cap; a refused one does not take a slot', async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [
            { name: 'calculator', rawArguments: '{"expression": "6*' },
            { name: 'calculator', args: { expression: '6*7' } },
            { name: 'calculator', args: { expression: '6*8' } },
          ],
        },
        { answer: '42' },
      ],
      'q',
      { limits: { maxCallsPerTool: { calculator: 1 } } },
    );
    const result = await run.result();
    const [bad, first, second] = result.trace.steps;
    expect(bad?.observation).toContain('the arguments are not valid JSON');
    expect(first).toMatchObject({ isError: false, observationData: { result: 42 } });
    expect(second?.observation).toContain('may call calculator at most 1 times');
    expect(result.trace.toolRuns).toEqual({ calculator: 1 });
  });

  it('long observations are truncated to history.maxObservationTokens before the model sees them', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'read_file', args: { path: 'big.txt' } }] }, { answer: 'a lot of x' }],
      'q',
      { history: { maxObservationTokens: 100 } },
    );
    const result = await run.result();
    const step = result.trace.steps[0];
    expect(step?.truncated).toBe(true);
    expect(step?.observation?.length).toBeLessThan(600); // ~100 tokens at 4 characters each, plus the marker
    expect(step?.observation).toMatch(/\[truncated: \d+ more characters\]$/);
    const seen = harness.model.requests(run.modelName)[1]?.messages.find((message) => message.role === 'tool');
    expect(String(seen?.content)).toBe(step?.observation);
  });

  it('a reply with thousands of tool calls runs none of them: the model is told to make fewer, and the run goes on', async () => {
    const flood = Array.from({ length: 6000 }, (_, index) => ({
      name: 'calculator',
      args: { expression: `${index}+1` },
    }));
    const run = await harness.start(
      [
        { thought: 'Every one of these sums is needed, so I compute them all at once.', toolCalls: flood },
        { answer: 'I will ask for fewer sums.' },
      ],
      'q',
    );
    const result = await run.result();
    expect(result).toMatchObject({ terminationReason: 'success', finalAnswer: 'I will ask for fewer sums.' });
    expect(result.trace.toolUsage).toEqual({});
    expect(result.trace.steps).toHaveLength(1);
    const feedback = harness.model.requests(run.modelName)[1]?.messages.at(-1)?.content;
    expect(feedback).toContain('Your reply made 6000 tool calls; at most 16 are allowed in one reply.');
  });

  it('a tool result of megabytes (a text replace blowing 7 KB up to 10 MB) is cut, kept without its data, and the run ends', async () => {
    const blowUp = { operation: 'replace', text: 'a'.repeat(7000), search: 'a', replacement: 'x'.repeat(1500) };
    const run = await harness.start(
      [
        {
          thought: 'The template needs every placeholder expanded before I can count it.',
          toolCalls: [{ name: 'text', args: blowUp }],
        },
        { answer: 'Expanded.' },
      ],
      'q',
    );
    const result = await run.result();
    expect(result).toMatchObject({ terminationReason: 'success', finalAnswer: 'Expanded.' });
    expect(result.trace.steps[0]).toMatchObject({ isError: false, truncated: true });
    expect(result.trace.steps[0]).not.toHaveProperty('observationData');
    expect(JSON.stringify(result).length).toBeLessThan(100_000);
  });

  it("a worker without a tool its run's list names says that workers on its queue differ, not 'unknown tool'", async () => {
    // The harness's worker lists the run's tools (transfer among them); a person's approval holds the call while
    // that worker goes and one with only the built-in tools takes the queue, as when two deployments share it.
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'transfer', args: { to: 'bob', amount: 5 } }] },
        { answer: 'The transfer could not run here.' },
      ],
      'Send bob 5.',
      { approvals: { require: ['transfer'] } },
    );
    await waitForPending(harness, run.workflowId);
    await harness.restartWorker(async () => {
      const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
      const other = await createAgentWorker({
        connection,
        namespace: inject('temporalNamespace'),
        taskQueue: harness.agents.taskQueue,
        registry: new ToolRegistry(createBuiltinTools()),
        openai: createOpenAIClient({ apiKey: 'test-key', baseURL: harness.model.baseURL }),
        defaultModel: 'unscripted',
        workflowBundle: { codePath: inject('workflowBundlePath') },
      });
      const running = other.run();
      try {
        await run.approve();
        const result = await run.result();
        expect(result.finalAnswer).toBe('The transfer could not run here.');
        expect(result.trace.steps[0]?.observation).toBe(
          `[error] transfer({"to":"bob","amount":5}): this worker has no tool "transfer", which the run's tool list ` +
            `names: workers on task queue "${harness.agents.taskQueue}" serve different tools (each worker on a ` +
            'queue must serve the same ones), or the MCP server it comes from did not answer this worker',
        );
        // A call that never ran: counted as an unknown tool, and no run of the tool is charged to its cap.
        expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual(['unknown_tool']);
      } finally {
        other.shutdown();
        await running;
        await connection.close();
      }
    });
  });
});
