import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/shared/events';
import type { EventsGap } from '../../src/client/events';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Red team round 2, N1: every follower long-polls with the `waitForEvents` update, and a follower that goes away
 * cannot withdraw it. Ten abandoned followers used up the run's ten update slots, so a waiting run (which has no next
 * event) could not be approved by anyone until its approval timeout.
 */
const harness = useHarness();

const approvalRun = () =>
  harness.start(
    [{ toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] }, { content: 'It is 4.' }],
    'What is 2+2?',
    { requireConfirmation: ['calculator'] },
  );

/** Follows a run until the signal aborts it; resolves with what it saw. */
async function follow(workflowId: string, signal?: AbortSignal): Promise<Array<AgentEvent | EventsGap>> {
  const seen: Array<AgentEvent | EventsGap> = [];
  for await (const event of harness.agents.events(workflowId, signal ? { signal } : {})) seen.push(event);
  return seen;
}

/** Unfinished `waitForEvents` updates in the run's history: accepted and not completed. */
async function openWaits(workflowId: string): Promise<number> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  let open = 0;
  for (const event of history.events ?? []) {
    if (event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'waitForEvents') open++;
    if (event.workflowExecutionUpdateCompletedEventAttributes) open--;
  }
  return open;
}

describe('abandoned event followers cannot wedge a run (N1)', () => {
  it('ten followers that went away leave the run decidable at once, and hold at most four slots', async () => {
    const run = await approvalRun();
    const pending = await waitForPending(harness, run.workflowId);
    for (let index = 0; index < 10; index++) {
      const gone = new AbortController();
      const following = follow(run.workflowId, gone.signal);
      // Long enough to read the page and send the long-poll; then the follower goes away (a closed tab).
      await new Promise((resolve) => setTimeout(resolve, 300));
      gone.abort();
      await following;
    }
    expect(await openWaits(run.workflowId)).toBeLessThanOrEqual(4);
    // With ten slots held this failed with RESOURCE_EXHAUSTED (after the SDK's ~40 s of retries).
    await harness.agents.approve(run.workflowId, pending.approvals[0]!.callId);
    expect((await run.result()).finalAnswer).toBe('It is 4.');
  }, 60_000);

  it("followers beyond the cap still see every event, the run's end included", async () => {
    const run = await approvalRun();
    const pending = await waitForPending(harness, run.workflowId);
    const followers = Array.from({ length: 6 }, () => follow(run.workflowId));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await harness.agents.approve(run.workflowId, pending.approvals[0]!.callId);
    const seen = await Promise.all(followers);
    const types = seen.map((events) => events.map((event) => event.type));
    for (const each of types) {
      expect(each).toEqual(types[0]);
      expect(each.at(-1)).toBe('terminated');
    }
  }, 60_000);
});
