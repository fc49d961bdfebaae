import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();
const RESEARCHER = 'You are the researcher subagent.';
const isChild = (request: RecordedRequest) => String(request.messages[0]?.content).startsWith(RESEARCHER);
const subagents = {
  researcher: { description: 'looks facts up', systemPrompt: RESEARCHER, limits: { maxIterations: 5 } },
};

/** One responder for parent and child (they share the scripted model name), told apart by the system prompt. */
function script(parent: ScriptedTurn[], child: ScriptedTurn[]): ScriptedResponder {
  let parentIndex = 0;
  let childIndex = 0;
  return (request) => {
    const turn = isChild(request) ? child[childIndex++] : parent[parentIndex++];
    return turn ?? { status: 400, errorMessage: 'script exhausted' };
  };
}

const delegation: ScriptedTurn = {
  thought: 'The researcher can look this up while I keep the overview.',
  toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 12 squared?' } }],
  usage: { promptTokens: 100, completionTokens: 10 },
};

describe('subagents', () => {
  it('delegate runs a child workflow; the step records its ID and answer; its tokens roll up', async () => {
    const run = await harness.start(
      script(
        [delegation, { answer: 'The researcher found 144.', usage: { promptTokens: 100, completionTokens: 10 } }],
        [
          {
            thought: 'Squaring needs exact arithmetic, so the calculator.',
            toolCalls: [{ name: 'calculator', args: { expression: '12^2' } }],
            usage: { promptTokens: 50, completionTokens: 5 },
          },
          { answer: '12 squared is 144.', usage: { promptTokens: 50, completionTokens: 5 } },
        ],
      ),
      'q',
      { subagents },
    );
    const result = await run.result();
    const step = result.trace.steps[0];
    expect(step?.action).toMatchObject({ type: 'delegate', agent: 'researcher', task: 'What is 12 squared?' });
    expect(step?.childWorkflowId).toBe(`${run.workflowId}/c1-1-researcher`);
    expect(step?.observation).toBe('12 squared is 144.');
    expect(result.finalAnswer).toBe('The researcher found 144.');
    expect(result.tokenUsage.totalTokens).toBe(110 + 110 + 55 + 55); // parent's two calls plus the child's two
    const child = await harness.agents.handle(step?.childWorkflowId ?? '').result();
    expect(child.trace.steps[0]?.observationData).toMatchObject({ result: 144 });
    // The parent model saw the delegation offered with the subagent's description.
    const offered = harness.model.requests(run.modelName).find((request) => !isChild(request))?.tools;
    expect(JSON.stringify(offered?.find((tool) => tool.function.name === 'delegate'))).toContain(
      'researcher (looks facts up)',
    );
  });

  it("a subagent's long answer is truncated like any observation before the parent's model sees it", async () => {
    const run = await harness.start(
      script([delegation, { answer: 'Summarised.' }], [{ answer: 'fact '.repeat(4000) }]),
      'q',
      { subagents, history: { maxObservationTokens: 100 } },
    );
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ truncated: true });
    expect(result.trace.steps[0]?.observation).toMatch(/\[truncated: \d+ more characters\]$/);
    const seen = harness.model
      .requests(run.modelName)
      .find((request) => !isChild(request) && request.messages.some((message) => message.role === 'tool'));
    expect(String(seen?.messages.find((message) => message.role === 'tool')?.content).length).toBeLessThan(500);
  });

  it("an approval inside a child is pending under the child's ID and decided there", async () => {
    const run = await harness.start(
      script(
        [
          {
            ...delegation,
            toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'Remove record r9.' } }],
          },
          { answer: 'Done via the researcher.' },
        ],
        [
          { thought: 'Record r9 must go, so I delete it.', toolCalls: [{ name: 'delete_record', args: { id: 'r9' } }] },
          { answer: 'r9 deleted.' },
        ],
      ),
      'q',
      { subagents },
    );
    const childId = `${run.workflowId}/c1-1-researcher`;
    await waitForPending(harness, childId);
    let listed = await harness.agents.listPending();
    for (let attempt = 0; attempt < 50 && !listed.some((item) => item.workflowId === childId); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      listed = await harness.agents.listPending();
    }
    expect(listed.find((item) => item.workflowId === childId)).toMatchObject({
      kind: 'approval',
      callId: 'c1-1',
      tool: 'delete_record',
    });
    await harness.agents.handle(childId).approve('c1-1');
    expect((await run.result()).trace.steps[0]?.observation).toBe('r9 deleted.');
  });

  it('cancelling the parent cancels the child', async () => {
    const run = await harness.start(
      script(
        [
          {
            ...delegation,
            toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'Wait for the slow source.' } }],
          },
        ],
        [
          {
            thought: 'Only the slow source has this, so I wait for it.',
            toolCalls: [{ name: 'wait_forever', args: {} }],
          },
        ],
      ),
      'q',
      { subagents },
    );
    const childId = `${run.workflowId}/c1-1-researcher`;
    for (let attempt = 0; attempt < 100; attempt++) {
      const status = await harness.agents.client.workflow
        .getHandle(childId)
        .query('getStatus')
        .catch(() => null);
      if ((status as { runningTools?: string[] } | null)?.runningTools?.includes('wait_forever')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await run.cancel();
    expect((await run.result()).terminationReason).toBe('cancelled');
    expect((await harness.agents.handle(childId).result()).terminationReason).toBe('cancelled');
  });

  it('the token budget is shared: the child gets what is left, and its use counts against the parent', async () => {
    const costly = (n: number): ScriptedTurn => ({
      thought: `Computing part ${n} of the figure with the calculator.`,
      toolCalls: [{ name: 'calculator', args: { expression: `${n}*2` } }],
      usage: { promptTokens: 1500, completionTokens: 0 },
    });
    const run = await harness.start(
      script(
        [{ ...delegation, usage: { promptTokens: 1000, completionTokens: 0 } }],
        [costly(1), costly(2), costly(3), costly(4)],
      ),
      'q',
      { subagents, forceFinalAnswer: false, limits: { tokenBudget: 5100 } },
    );
    const result = await run.result();
    const child = await harness.agents.handle(`${run.workflowId}/c1-1-researcher`).result();
    // 4100 are left for it; after the first call it knows its prompt costs ~3.5 tokens a character, so the second
    // (~2,450 estimated) fits and a third would not.
    expect(child.terminationReason).toBe('token_budget');
    expect(child.tokenUsage.totalTokens).toBe(3000);
    expect(result.terminationReason).toBe('token_budget');
    expect(result.tokenUsage.totalTokens).toBe(1000 + 3000);
  });
});
