import { describe, expect, inject, it } from 'vitest';
import { AgentClient, AgentRunError, InvalidConfigError } from '../../src/client';
import { useHarness } from '../support/harness';

const harness = useHarness();

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (accept(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not reached in 10 s');
}

describe('cancellation', () => {
  it('returns the partial trace with reason cancelled and no forced answer', async () => {
    const run = await harness.start([
      {
        thought: 'First I compute the base figure with the calculator.',
        toolCalls: [{ name: 'calculator', args: { expression: '40+2' } }],
      },
      { thought: 'Now I wait for the slow data source to answer.', toolCalls: [{ name: 'wait_forever', args: {} }] },
      { answer: 'must not be asked' },
    ]);
    await eventually(
      () => run.getStatus(),
      (status) => status.runningTools.includes('wait_forever'),
    );
    await run.cancel();
    const result = await run.result();
    expect(result.terminationReason).toBe('cancelled');
    expect(result.success).toBe(false);
    expect(result.finalAnswer).toBeNull();
    expect(result.trace.steps[0]?.observationData).toEqual({ expression: '40+2', result: 42 });
    expect(result.trace.steps[1]?.observation).toContain('interrupted');
    expect(harness.model.requests(run.modelName)).toHaveLength(2);
  });

  it("Temporal shows a cancelled agent run as Completed; AgentStatus = 'Cancelled' finds it", async () => {
    const run = await harness.start([
      {
        thought: 'The slow data source has the figure, so I wait for its answer.',
        toolCalls: [{ name: 'wait_forever', args: {} }],
      },
    ]);
    await eventually(
      () => run.getStatus(),
      (status) => status.runningTools.includes('wait_forever'),
    );
    await run.cancel();
    expect((await run.result()).terminationReason).toBe('cancelled');
    // The workflow returns its partial result, so Temporal's own status is Completed, not Cancelled.
    expect((await harness.client.workflow.getHandle(run.workflowId).describe()).status.name).toBe('COMPLETED');
    const query = `AgentStatus = 'Cancelled' AND WorkflowId = '${run.workflowId}'`;
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const execution of harness.client.workflow.list({ query })) ids.push(execution.workflowId);
        return ids;
      },
      (ids) => ids.length > 0,
    );
    expect(found).toEqual([run.workflowId]);
  });
});

describe('queries', () => {
  it('getTrace, getScratchpad and getStatus describe a run', async () => {
    const run = await harness.start(
      [
        {
          thought: 'The word length needs the text tool; counting by eye is error-prone.',
          toolCalls: [{ name: 'text', args: { operation: 'length', text: 'durable' } }],
        },
        { answer: 'durable has 7 letters' },
      ],
      'How long is "durable"?',
    );
    const result = await run.result();
    const trace = await run.getTrace();
    expect(trace).toEqual(result.trace);
    const scratchpad = await run.getScratchpad();
    expect(scratchpad).toContain('Thought: The word length needs the text tool');
    expect(scratchpad).toContain('Action: text');
    expect(scratchpad).toContain('Action Input: {"operation":"length","text":"durable"}');
    expect(scratchpad).toMatch(/Observation: [\s\S]*7/);
    expect(scratchpad).toContain('Final Answer: durable has 7 letters');
    expect(await run.getStatus()).toMatchObject({ state: 'completed', iteration: 2, terminationReason: 'success' });
  });
});

describe('configuration', () => {
  it('is validated before the workflow starts, listing every bad field', async () => {
    const started = harness.agents.start('q', {
      limits: { maxIterations: 'ten', stallThreshold: 0 },
      colour: 'blue',
    } as never);
    await expect(started).rejects.toBeInstanceOf(InvalidConfigError);
    const message = (await started.catch((error: Error) => error.message)) as string;
    expect(message).toMatch(/^Invalid agent config: /);
    expect(message).toContain('limits.maxIterations');
    expect(message).toContain('limits.stallThreshold');
    expect(message).toContain('unknown field: colour');
  });

  it('an unknown tool name in config.tools fails the run with a clear error', async () => {
    const run = await harness.start([{ answer: 'x' }], 'q', { tools: ['calculator', 'teleport'] });
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('InvalidConfigError');
    expect(error.message).toBe('Unknown tools in config.tools: teleport');
  });

  it('config.tools limits what the model is offered', async () => {
    const run = await harness.start([{ answer: 'ok' }], 'q', { tools: ['calculator'] });
    await run.result();
    const offered = harness.model.requests(run.modelName)[0]?.tools?.map((tool) => tool.function.name);
    expect(offered).toEqual(['calculator', 'final_answer', 'request_clarification']);
  });
});

describe('AgentClient.connect', () => {
  it('connects by address, runs an agent, and close() releases the connection', async () => {
    const agents = await AgentClient.connect({
      address: inject('temporalAddress'),
      taskQueue: harness.agents.taskQueue,
    });
    const modelName = 'connect-scenario';
    harness.model.script(modelName, [{ answer: 'connected' }]);
    const run = await agents.start('q', { model: modelName });
    expect((await run.result()).finalAnswer).toBe('connected');
    await agents.close();
    await expect(agents.start('q', { model: modelName })).rejects.toThrow();
  });
});
