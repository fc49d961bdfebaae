import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../../src/client';
import { createHarness, useHarness, type Harness } from '../support/harness';

const harness = useHarness();

describe('model endpoint faults', () => {
  it('two 500s then success: Temporal retries the model activity and the run succeeds', async () => {
    const run = await harness.start([{ status: 500 }, { status: 503 }, { answer: 'fine after retries' }]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('fine after retries');
    expect(harness.model.requests(run.modelName)).toHaveLength(3);
    expect(result.trace.totalIterations).toBe(1); // retries are attempts of one step, not new iterations
  });

  it('401 fails fast with a message that says what to fix', async () => {
    const run = await harness.start([{ status: 401, errorMessage: 'Incorrect API key provided' }, { answer: 'never' }]);
    const failure = await run.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunError);
    const error = failure as AgentRunError;
    expect(error.type).toBe('ModelAuthenticationError');
    expect(error.message).toContain(`OPENAI_API_KEY rejected by ${harness.model.baseURL} (HTTP 401)`);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.trace?.errorHistory.at(-1)?.kind).toBe('model_error');
    expect(harness.model.requests(run.modelName)).toHaveLength(1); // no retry
  });

  it('an endpoint that echoes the API key gets it redacted from the failure and the history', async () => {
    const apiKey = 'test-key'; // the key the harness's model client sends
    const run = await harness.start([
      { status: 500, errorMessage: `upstream rejected Authorization: Bearer ${apiKey}` },
      { status: 401, errorMessage: `Incorrect API key provided: ${apiKey}` },
    ]);
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('ModelAuthenticationError');
    expect(error.message).toContain('Incorrect API key provided: [REDACTED]');
    expect(error.message).not.toContain(apiKey);
    const events = (await harness.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    // Payload bytes are decoded so a key inside an encoded value would be seen too.
    const history = JSON.stringify(events, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value,
    );
    expect(history).toContain('upstream rejected Authorization: Bearer [REDACTED]');
    expect(history).not.toContain(apiKey);
  });

  it('404 names the model and the variables to check', async () => {
    const run = await harness.start([{ status: 404, errorMessage: 'The model does not exist' }]);
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;
    expect(error.type).toBe('ModelNotFoundError');
    expect(error.message).toContain(`Model "${run.modelName}"`);
    expect(error.message).toContain('Check OPENAI_MODEL and OPENAI_BASE_URL');
  });

  it('429 honours retry-after as the next retry delay', async () => {
    const run = await harness.start([{ status: 429, retryAfter: '3' }, { answer: 'after waiting' }]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('after waiting');
    const [first, second] = harness.model.requests(run.modelName);
    // Temporal's own first backoff is 1 s; the endpoint asked for 3 s.
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(2900);
  });

  it('a request hanging past the client timeout is abandoned and retried', async () => {
    const impatient = await createHarness({ modelTimeoutMs: 500 });
    try {
      const run = await impatient.start([{ answer: 'too late', delayMs: 5_000 }, { answer: 'recovered' }]);
      const result = await run.result();
      expect(result.finalAnswer).toBe('recovered');
      const [hung, retry] = impatient.model.requests(run.modelName);
      expect((retry?.receivedAt ?? 0) - (hung?.receivedAt ?? 0)).toBeLessThan(5_000);
    } finally {
      await impatient.close();
    }
  });

  it('a multi-megabyte reply is refused once, with its size, and the run goes on', async () => {
    await expectHugeReplyRefusedOnce(harness);
  });
});

describe("model endpoint faults with the worker's modelCalls.local", () => {
  const local = useHarness({ modelCalls: { local: true } });

  it('a 500 is retried and a 401 still fails the run fast with its type', async () => {
    const retried = await local.start([{ status: 500 }, { answer: 'fine after a retry' }]);
    expect((await retried.result()).finalAnswer).toBe('fine after a retry');
    expect(local.model.requests(retried.modelName)).toHaveLength(2);
    const refused = await local.start([{ status: 401, errorMessage: 'Incorrect API key provided' }]);
    const error = (await refused.result().catch((caught: unknown) => caught)) as AgentRunError;
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('ModelAuthenticationError');
    expect(local.model.requests(refused.modelName)).toHaveLength(1);
  });

  it('a multi-megabyte reply is refused once, with its size, and the run goes on', async () => {
    await expectHugeReplyRefusedOnce(local);
  });
});

/** A reply over the size limit costs one paid call, not one per retry, and the model is told to be brief. */
async function expectHugeReplyRefusedOnce(on: Pick<Harness, 'start' | 'model'>): Promise<void> {
  const run = await on.start([{ answer: 'x'.repeat(3_000_000) }, { answer: 'Short answer.' }]);
  const result = await run.result();
  expect(result).toMatchObject({ terminationReason: 'success', finalAnswer: 'Short answer.' });
  const requests = on.model.requests(run.modelName);
  expect(requests).toHaveLength(2);
  expect(String(requests[1]?.messages.at(-1)?.content)).toContain(
    'Your reply was 3000000 characters; replies over 200000 characters are not read. Reply more briefly.',
  );
  expect(JSON.stringify(result).length).toBeLessThan(100_000);
}
