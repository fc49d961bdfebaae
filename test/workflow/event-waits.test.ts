import { WorkflowUpdateStage } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { getEventsQuery, waitForEventsUpdate } from '../../src/shared/messages';
import type { AgentEvent } from '../../src/shared/events';
import type { EventsGap } from '../../src/client/events';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Red team round 2, N1: every follower long-polled with the `waitForEvents` update, and a follower that goes away
 * cannot withdraw it. Ten abandoned followers used up the run's ten update slots, so a waiting run (which has no next
 * event) could not be approved by anyone until its approval timeout.
 */
const harness = useHarness();

const approvalRun = () =>
  harness.start(
    [{ toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] }, { content: 'It is 4.' }],
    'What is 2+2?',
    { approvals: { require: ['calculator'] } },
  );

/** Follows a run until the signal aborts it; resolves with what it saw. */
async function follow(workflowId: string, signal?: AbortSignal): Promise<Array<AgentEvent | EventsGap>> {
  const seen: Array<AgentEvent | EventsGap> = [];
  for await (const event of harness.agents.handle(workflowId).events(signal ? { signal } : {})) seen.push(event);
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

/** `waitForEvents` updates the run completed: each counts toward Temporal's 2,000 per run. */
async function completedWaits(workflowId: string): Promise<number> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  const waits = new Set<string>();
  let completed = 0;
  for (const event of history.events ?? []) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted?.acceptedRequest?.input?.name === 'waitForEvents') waits.add(accepted.protocolInstanceId ?? '');
    const done = event.workflowExecutionUpdateCompletedEventAttributes;
    if (done && waits.has(done.meta?.updateId ?? '')) completed++;
  }
  return completed;
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
    // The library's followers read the run's history (issue 36): they hold no update slot at all.
    expect(await openWaits(run.workflowId)).toBe(0);
    // A client that still long-polls by update (an older version) gets four waits: they hold their slots until the
    // next event; the other two were refused and left nothing in history, so abandoned followers cannot run the run's
    // 2,000-update total down either (review of the first fix, which released old waits instead: each release was one
    // more completed update).
    const handle = harness.client.workflow.getHandle(run.workflowId);
    const { head } = await handle.query(getEventsQuery, { after: 0 });
    for (let index = 0; index < 6; index++) {
      // Returns once the server settled the update: accepted (it waits) or refused by the validator.
      await handle.startUpdate(waitForEventsUpdate, {
        args: [{ after: head }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
    }
    expect(await openWaits(run.workflowId)).toBe(4);
    expect(await completedWaits(run.workflowId)).toBe(0);
    // With ten slots held this failed with RESOURCE_EXHAUSTED (after the SDK's ~40 s of retries).
    await harness.agents.handle(run.workflowId).approve(pending.approvals[0]!.callId);
    expect((await run.result()).finalAnswer).toBe('It is 4.');
  }, 60_000);

  it("followers beyond the cap still see every event, the run's end included", async () => {
    const run = await approvalRun();
    const pending = await waitForPending(harness, run.workflowId);
    const followers = Array.from({ length: 6 }, () => follow(run.workflowId));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await harness.agents.handle(run.workflowId).approve(pending.approvals[0]!.callId);
    const seen = await Promise.all(followers);
    const types = seen.map((events) => events.map((event) => event.type));
    for (const each of types) {
      expect(each).toEqual(types[0]);
      expect(each.at(-1)).toBe('terminated');
    }
  }, 60_000);
});
