import { describe, expect, it } from 'vitest';
import { CRITIC_MARKER } from '../../src/shared/critic';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

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
    expect(JSON.stringify(agentRequests[1]?.messages)).toContain('Critic (CALL_DIFFERENT_TOOL, confidence 0.85)');
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
