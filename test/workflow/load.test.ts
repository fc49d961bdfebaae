import { describe, expect, it } from 'vitest';
import type { PendingItem } from '../../src/client/decisions';
import { MessageRefusedError } from '../../src/client/errors';
import type { RecordedRequest } from '../../src/testing/scripted-model';
import { lastMessageOf } from '../../src/testing/scripted-turn';
import { MAX_QUEUED_MESSAGES } from '../../src/workflow/conversation';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Issue 45, item 9: load at a scale this machine (2 cores) carries inside the suite. Each test asserts a bound a user
 * relies on (nothing lost, nothing stuck, the refusal says so), not a time: speed is bench/'s business. Figures at
 * larger scale are in docs/security.md ("Load").
 */

const harness = useHarness();

const thought = 'The user asked for this record to go, so I delete it.';
const deleteTurns = (id: string) => [
  { thought, toolCalls: [{ name: 'delete_record', args: { id } }] },
  { answer: `deleted ${id}` },
];

describe('under load', () => {
  it(
    '200 runs started at once all reach their approval, and one listing names every one',
    { timeout: 240_000 },
    async () => {
      const runs = await Promise.all(
        Array.from({ length: 200 }, (_, index) => harness.start(deleteTurns(`r${index}`))),
      );
      const ids = new Set(runs.map((run) => run.workflowId));
      // A listing leaves out a run whose query outlasted its timeout (a loaded machine): poll for one that names all.
      let listed: PendingItem[] = [];
      await expect
        .poll(
          async () => {
            listed = (await harness.agents.listPending()).filter((item) => ids.has(item.workflowId));
            return new Set(listed.map((item) => item.workflowId)).size;
          },
          { timeout: 180_000, interval: 1000 },
        )
        .toBe(200);
      // Every run waits on its own call, once; nothing was decided or lost on the way.
      expect(listed).toHaveLength(200);
      expect(listed.every((item) => item.kind === 'approval' && item.callId === 'c1-1')).toBe(true);
      await Promise.all(runs.map((run) => run.cancel()));
    },
  );

  it('50 followers of one run each get every event, and a decision made meanwhile applies at once', async () => {
    const run = await harness.start(deleteTurns('followed'));
    await waitForPending(harness, run.workflowId);
    const followers = Array.from({ length: 50 }, async () => {
      const types: string[] = [];
      for await (const event of run.events()) types.push(event.type);
      return types;
    });
    await harness.agents.handle(run.workflowId).approve();
    const result = await run.result();
    expect(result.finalAnswer).toBe('deleted followed');
    const seen = await Promise.all(followers);
    for (const types of seen) {
      expect(types[0]).toBe('run_started');
      expect(types).toContain('tool_finished');
      expect(types.at(-1)).toBe('terminated');
      expect(types).toEqual(seen[0]);
    }
  });

  it(
    '200 messages flooding a conversation that hands over: each is queued or refused by name, none queued is lost',
    { timeout: 240_000 },
    async () => {
      const answered: string[] = [];
      const run = await harness.start(
        (request: RecordedRequest) => {
          const question = lastMessageOf(request, 'user');
          answered.push(question);
          // The first turn is slow, so the flood arrives while it runs.
          return question === 'hello' ? { answer: 'hi', delayMs: 2000 } : { answer: `re: ${question}` };
        },
        'hello',
        // Handing over every two turns: messages keep arriving while one run closes and the next starts.
        { conversation: { idleTimeout: '3s' }, history: { maxStepsPerRun: 2 } },
      );
      const sends = await Promise.allSettled(Array.from({ length: 200 }, (_, index) => run.send(`m${index}`)));
      const accepted = sends.flatMap((sent, index) => (sent.status === 'fulfilled' ? [`m${index}`] : []));
      const refused = sends.flatMap((sent) => (sent.status === 'rejected' ? [sent.reason as unknown] : []));
      // The queue's bound (MAX_QUEUED_MESSAGES) is reached: the rest are refused, each saying why.
      expect(accepted.length).toBeGreaterThanOrEqual(MAX_QUEUED_MESSAGES);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const error of refused) {
        expect(error).toBeInstanceOf(MessageRefusedError);
        expect((error as Error).message).toContain(`${MAX_QUEUED_MESSAGES} and`);
      }
      // The conversation still answers, after every queued message had its turn.
      // As the refusal says: send again once a turn has started (the queue may still be full when the flood ends).
      const askWhenTaken = async (): Promise<unknown> => {
        for (;;) {
          try {
            return await run.ask('still there?');
          } catch (error) {
            if (!(error instanceof MessageRefusedError) || !/already waiting/.test(error.message)) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      };
      expect(await askWhenTaken()).toMatchObject({ finalAnswer: 're: still there?', reason: 'success' });
      const result = await run.result();
      const messages = result.trace.turns?.map((turn) => turn.message) ?? [];
      expect(messages.slice(0, 1)).toEqual(['hello']);
      expect(messages.slice(1, -1).sort()).toEqual([...accepted].sort());
      expect(messages.at(-1)).toBe('still there?');
    },
  );
});
