import { describe, expect, it } from 'vitest';
import { CRITIC_MARKER } from '../../src/shared/critic';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();
const isCritic = (request: RecordedRequest) => String(request.messages[0]?.content).startsWith(CRITIC_MARKER);

function script(agent: ScriptedTurn[], critic: string[]): ScriptedResponder {
  let agentIndex = 0;
  let criticIndex = 0;
  return (request) =>
    isCritic(request)
      ? { content: critic[criticIndex++] ?? '{}' }
      : (agent[agentIndex++] ?? { status: 400, errorMessage: 'script exhausted' });
}

const verdict = (decision: string, reasoning: string, confidence = 0.9) =>
  JSON.stringify({ decision, reasoning, confidence });

describe('critic mode', () => {
  it('a multi-part question shows the switch: the critic sends the agent to a different tool, then says answer now', async () => {
    const run = await harness.start(
      script(
        [
          {
            thought: 'First part: the AAPL share price, from the stock tool.',
            toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL' } }],
          },
          {
            thought: 'The critic says the Selic rate is still missing; the rates tool has it.',
            toolCalls: [{ name: 'interest_rate', args: { name: 'selic' } }],
          },
          { answer: 'AAPL trades at 227.5 USD and the Selic rate is 10.75%.' },
        ],
        [
          verdict('CALL_DIFFERENT_TOOL', 'The AAPL price is known; the Selic rate needs the interest-rate tool.', 0.85),
          verdict('CONTINUE', 'Both parts are answered.', 0.95),
        ],
      ),
      'What are the AAPL price and the Selic rate?',
      { critic: true },
    );
    const result = await run.result();
    const [first, second] = result.trace.steps;
    expect(first?.critic).toEqual({
      decision: 'CALL_DIFFERENT_TOOL',
      reasoning: 'The AAPL price is known; the Selic rate needs the interest-rate tool.',
      confidence: 0.85,
    });
    expect(second?.action).toMatchObject({ type: 'tool_call', tool: 'interest_rate' });
    expect(second?.critic?.decision).toBe('CONTINUE');
    expect(result.finalAnswer).toBe('AAPL trades at 227.5 USD and the Selic rate is 10.75%.');
    const agentRequests = harness.model.requests(run.modelName).filter((request) => !isCritic(request));
    expect(JSON.stringify(agentRequests[1]?.messages)).toContain(
      'The critic says a part of the task still needs a different tool: The AAPL price is known',
    );
    expect(JSON.stringify(agentRequests[2]?.messages)).toContain('give the final answer now');
    const criticRequest = harness.model.requests(run.modelName).find(isCritic);
    expect(JSON.stringify(criticRequest?.messages)).toContain('227.5');
  });

  it("the critic judges the whole task: its input holds the task and earlier steps' findings", async () => {
    const run = await harness.start(
      script(
        [
          { thought: 'The AAPL price first.', toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL' } }] },
          { thought: 'Now the Selic rate.', toolCalls: [{ name: 'interest_rate', args: { name: 'selic' } }] },
          { answer: 'AAPL trades at 227.5 USD and the Selic rate is 10.75%.' },
        ],
        [
          verdict('CALL_DIFFERENT_TOOL', 'The Selic rate is still missing.'),
          verdict('CONTINUE', 'Both parts are answered.'),
        ],
      ),
      'What are the AAPL price and the Selic rate?',
      { critic: true },
    );
    await run.result();
    const second = harness.model.requests(run.modelName).filter(isCritic)[1];
    const input = String(second?.messages[1]?.content);
    expect(input).toContain('Task: What are the AAPL price and the Selic rate?');
    // The first step's call and observation, which the latest step (the Selic rate) does not hold.
    expect(input).toMatch(/Earlier findings:[\s\S]*stock_price[\s\S]*227\.5[\s\S]*Latest step:[\s\S]*10\.75/);
  });

  it('CONTINUE ends the run: the next call offers no tools and its answer is the final answer', async () => {
    let agentCalls = 0;
    // A model that, offered tools, would go on calling them; without tools it answers.
    const responder: ScriptedResponder = (request) => {
      if (isCritic(request)) return { content: verdict('CONTINUE', 'The AAPL price answers the whole task.') };
      agentCalls += 1;
      if (agentCalls === 1)
        return {
          thought: 'The AAPL price comes from the stock tool.',
          toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL' } }],
        };
      if (request.tools?.length)
        return {
          thought: 'Another quote, to compare with AAPL.',
          toolCalls: [{ name: 'stock_price', args: { symbol: 'MSFT' } }],
        };
      return { answer: 'AAPL trades at 227.5 USD.' };
    };
    const run = await harness.start(responder, 'What is the AAPL price?', { critic: true });
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('AAPL trades at 227.5 USD.');
    expect(result.trace.steps.map((step) => [step.iteration, step.action.type])).toEqual([
      [1, 'tool_call'],
      [2, 'final_answer'],
    ]);
  });

  it('RETRY_WITH_REFINEMENT re-runs the call with the refined query, through approval like any call', async () => {
    const refine = JSON.stringify({
      decision: 'RETRY_WITH_REFINEMENT',
      reasoning: 'r-old is not the record the task names.',
      confidence: 0.8,
      refinedQuery: 'r-new',
    });
    const run = await harness.start(
      script(
        [
          {
            thought: 'The task names a record to delete, so I delete it.',
            toolCalls: [{ name: 'delete_record', args: { id: 'r-old' } }],
          },
          { answer: 'Deleted r-new.' },
        ],
        [refine, verdict('CONTINUE', 'The right record is deleted.')],
      ),
      'Delete the record r-new.',
      { critic: true },
    );
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    // The re-issued call needs approval too: it waits, as a call the model made would.
    await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    await harness.agents.handle(run.workflowId).approve('c2-1');
    const result = await run.result();
    expect(result.trace.steps[1]).toMatchObject({
      iteration: 2,
      action: { type: 'tool_call', tool: 'delete_record', args: { id: 'r-new' } },
      decision: { kind: 'approve' },
      observation: 'deleted r-new',
    });
    expect(result.finalAnswer).toBe('Deleted r-new.');
  });

  it('a re-issued call counts against limits.maxCallsPerTool like any call', async () => {
    const refine = JSON.stringify({
      decision: 'RETRY_WITH_REFINEMENT',
      reasoning: 'AAPL.US is not a ticker the tool knows.',
      confidence: 0.8,
      refinedQuery: 'AAPL',
    });
    const run = await harness.start(
      script(
        [
          {
            thought: 'The stock tool has the share price.',
            toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL.US' } }],
          },
          { answer: 'I could not get the AAPL price.' },
        ],
        [refine, verdict('INSUFFICIENT_DATA', 'The stock tool may not be called again.')],
      ),
      'What is the AAPL price?',
      { critic: true, limits: { maxCallsPerTool: { stock_price: 1 } } },
    );
    const result = await run.result();
    const reissued = result.trace.steps[1];
    expect(reissued).toMatchObject({
      action: { type: 'tool_call', tool: 'stock_price', args: { symbol: 'AAPL' } },
      isError: true,
    });
    expect(reissued?.observation).toContain('this run may call stock_price at most 1 times');
  });

  it("CALL_DIFFERENT_TOOL with 'steer' puts the critic's suggestion in the next prompt", async () => {
    const different = JSON.stringify({
      decision: 'CALL_DIFFERENT_TOOL',
      reasoning: 'The Selic rate is still missing.',
      confidence: 0.9,
      suggestion: 'call interest_rate with name "selic"',
    });
    const run = await harness.start(
      script(
        [
          {
            thought: 'The AAPL price comes from the stock tool.',
            toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL' } }],
          },
          { answer: 'AAPL trades at 227.5 USD; the Selic rate I did not find.' },
        ],
        [different],
      ),
      'What are the AAPL price and the Selic rate?',
      { critic: { onContinue: 'note' } },
    );
    await run.result();
    const agentRequests = harness.model.requests(run.modelName).filter((request) => !isCritic(request));
    expect(JSON.stringify(agentRequests[1]?.messages)).toContain('call interest_rate with name \\"selic\\"');
  });

  it('INSUFFICIENT_DATA ends the run as a failure that says what is missing', async () => {
    const run = await harness.start(
      script(
        [
          {
            thought: 'The quote tool should know the private company too.',
            toolCalls: [{ name: 'stock_price', args: { symbol: 'PRIVATECO' } }],
          },
          { answer: "I could not find PrivateCo's valuation: it is not listed." },
        ],
        [verdict('INSUFFICIENT_DATA', 'PrivateCo is not listed, so no tool here has its valuation.')],
      ),
      'What is PrivateCo worth?',
      { critic: true },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('failure');
    expect(result.trace.terminationDetail).toBe(
      'the critic found the data insufficient: PrivateCo is not listed, so no tool here has its valuation.',
    );
    expect(result.trace.steps.at(-1)).toMatchObject({ forced: true });
  });

  it('an unreadable verdict is recorded and the run goes on', async () => {
    const run = await harness.start(
      script(
        [
          {
            thought: 'The AAPL price comes from the stock tool.',
            toolCalls: [{ name: 'stock_price', args: { symbol: 'AAPL' } }],
          },
          { answer: '227.5 USD' },
        ],
        ['I think it is fine.'],
      ),
      'q',
      { critic: true },
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('227.5 USD');
    expect(result.trace.errorHistory).toEqual([
      expect.objectContaining({ kind: 'malformed_output', message: 'the critic replied without a JSON object' }),
    ]);
  });
});
