import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src';
import type { EventsGap } from '../../src/client/events';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();
const thought = 'The user asked to remove this record, so the delete tool is the right action.';

describe('followers while no worker answers', () => {
  it('a follower reading by query keeps following through queries that time out, and sees the run end', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'w1' } }] },
      { answer: 'deleted' },
    ]);
    await waitForPending(harness, run.workflowId);
    // Six followers: four hold the run's event waits, two read by query every 2 s (the run's cap on waits).
    const followers = Array.from({ length: 6 }, async () => {
      const seen: Array<AgentEvent | EventsGap> = [];
      for await (const event of run.events()) seen.push(event);
      return seen;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // A deploy, from the followers' view: after some 30 s with no poller the server refuses the readers' queries
    // ("no poller seen for task queue recently"), which used to end their streams with that error.
    await harness.restartWorker(() => new Promise((resolve) => setTimeout(resolve, 40_000)));
    await harness.agents.handle(run.workflowId).approve('c1-1');
    for (const seen of await Promise.all(followers)) {
      expect(seen.at(-1)).toMatchObject({ type: 'terminated', reason: 'success' });
    }
    expect((await run.result()).finalAnswer).toBe('deleted');
  }, 120_000);
});
