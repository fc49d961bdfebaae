import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentRunError, InvalidConfigError } from '../../src/client';
import { ErrorType } from '../../src/shared/errors';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

const harness = useHarness();
const settings = {
  temperature: 0.3,
  maxTokens: 300,
  toolChoice: 'required',
  reasoningEffort: 'low',
  parallelToolCalls: false,
} as const;
const sent = {
  temperature: 0.3,
  max_tokens: 300,
  tool_choice: 'required',
  reasoning_effort: 'low',
  parallel_tool_calls: false,
};
const calculation: ScriptedTurn = {
  thought: 'The product needs exact arithmetic, so the calculator.',
  toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }],
};
const answer: ScriptedTurn = { toolCalls: [{ name: 'final_answer', args: { answer: '42' } }] };

describe('model settings', () => {
  it('go with every thinking call under their API names', async () => {
    const run = await harness.start([calculation, answer], 'What is 6*7?', { modelSettings: settings });
    const result = await run.result();
    expect(result.finalAnswer).toBe('42');
    const requests = harness.model.requests(run.modelName);
    expect(requests).toHaveLength(2);
    for (const request of requests) expect(request).toMatchObject(sent);
  });

  it('leave the request untouched when unset', async () => {
    const run = await harness.start([{ answer: 'Hello.' }]);
    await run.result();
    const [request] = harness.model.requests(run.modelName);
    for (const field of Object.keys(sent)) expect(request).not.toHaveProperty(field);
  });

  it('cap a call at the smaller of maxTokens and what the token budget leaves', async () => {
    const roomy = await harness.start([calculation, answer], 'q', {
      modelSettings: { maxTokens: 300 },
      limits: { tokenBudget: 1_000_000 },
    });
    await roomy.result();
    for (const request of harness.model.requests(roomy.modelName)) expect(request.max_tokens).toBe(300);

    const tight = await harness.start([calculation, answer], 'q', {
      modelSettings: { maxTokens: 5000 },
      limits: { tokenBudget: 4000 },
    });
    await tight.result();
    const [first] = harness.model.requests(tight.modelName);
    expect(first?.max_tokens).toBeGreaterThan(64);
    expect(first?.max_tokens).toBeLessThan(4000); // the budget's allowance, not the 5000 asked for
  });

  it('go with the forced final answer too, except the tool fields a request without tools cannot carry', async () => {
    const run = await harness.start([calculation, { answer: 'Stopped at 42.' }], 'q', {
      modelSettings: settings,
      limits: { maxIterations: 1 },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('max_iterations');
    expect(result.trace.forcedFinalAnswer).toEqual({ status: 'given' });
    const forced = harness.model.requests(run.modelName).at(-1);
    expect(forced).not.toHaveProperty('tools');
    expect(forced).not.toHaveProperty('tool_choice');
    expect(forced).not.toHaveProperty('parallel_tool_calls');
    expect(forced).toMatchObject({ temperature: 0.3, max_tokens: 300, reasoning_effort: 'low' });
  });

  it("a subagent's own settings go with its calls; what it does not set, it takes from the run", async () => {
    const researcher = 'You are the researcher subagent.';
    const isChild = (request: RecordedRequest) => String(request.messages[0]?.content).startsWith(researcher);
    const parentTurns: ScriptedTurn[] = [
      {
        thought: 'The researcher can work this out while I keep the overview.',
        toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 6*7?' } }],
      },
      { answer: 'The researcher found 42.' },
    ];
    const childTurns: ScriptedTurn[] = [calculation, answer];
    let parentIndex = 0;
    let childIndex = 0;
    const responder: ScriptedResponder = (request) =>
      (isChild(request) ? childTurns[childIndex++] : parentTurns[parentIndex++]) ?? { status: 400 };
    const run = await harness.start(responder, 'q', {
      subagents: {
        researcher: {
          description: 'works things out',
          systemPrompt: researcher,
          modelSettings: { temperature: 0.1, maxTokens: 123, toolChoice: 'required', parallelToolCalls: false },
        },
      },
      modelSettings: { temperature: 0.9, reasoningEffort: 'high' },
    });
    expect((await run.result()).finalAnswer).toBe('The researcher found 42.');
    const requests = harness.model.requests(run.modelName);
    const child = requests.filter(isChild);
    expect(child).toHaveLength(2);
    for (const request of child) {
      expect(request).toMatchObject({
        temperature: 0.1,
        max_tokens: 123,
        tool_choice: 'required',
        parallel_tool_calls: false,
        reasoning_effort: 'high',
      });
    }
    const parent = requests.filter((request) => !isChild(request));
    expect(parent).toHaveLength(2);
    for (const request of parent) {
      expect(request).toMatchObject({ temperature: 0.9, reasoning_effort: 'high' });
      expect(request).not.toHaveProperty('max_tokens');
      expect(request).not.toHaveProperty('tool_choice');
    }
  });

  it.each([
    [
      { modelSettings: { temperature: 3 } },
      'Invalid agent config: modelSettings.temperature: Too big: expected number to be <=2',
    ],
    [
      { modelSettings: { toolChoice: 'sometimes' } },
      'Invalid agent config: modelSettings.toolChoice: Invalid option: expected one of "auto"|"required"|"none"',
    ],
    [
      { modelSettings: { maxTokens: 0 } },
      'Invalid agent config: modelSettings.maxTokens: Too small: expected number to be >=1',
    ],
  ])('an invalid %j is refused before the run starts, in one line', async (config, message) => {
    const started = harness.agents.start('q', config as never);
    await expect(started).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(started).rejects.toThrow(message);
  });

  it('a run started elsewhere with a setting its mode cannot send fails at its start with the reason', async () => {
    const workflowId = `settings-${randomUUID()}`;
    await harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: harness.agents.taskQueue,
      workflowId,
      args: [{ query: 'q', config: { modelSettings: { toolCalling: 'text', toolChoice: 'required' } } }],
    });
    const failure = await harness.agents
      .handle(workflowId)
      .result()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunError);
    expect((failure as AgentRunError).type).toBe(ErrorType.InvalidConfig);
    expect((failure as AgentRunError).message).toBe(
      "Invalid agent config: modelSettings.toolChoice: needs modelSettings.toolCalling 'native' (text mode offers the model no tools to choose from)",
    );
  });
});
