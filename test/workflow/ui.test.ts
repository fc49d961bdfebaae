import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { CRITIC_MARKER } from '../../src/shared/critic';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();
const text = (payload: temporal.api.common.v1.IPayload | null | undefined) =>
  payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;
const system = (request: RecordedRequest) => String(request.messages[0]?.content);

async function currentDetails(workflowId: string): Promise<string> {
  const metadata = await harness.client.workflow
    .getHandle(workflowId)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

async function history(workflowId: string) {
  return (await harness.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

describe('the Temporal UI reads like a ReAct trace', () => {
  it('runs carry a summary and details; activities and children carry readable summaries', async () => {
    let agentCalls = 0;
    const responder: ScriptedResponder = (request) => {
      if (system(request).startsWith(CRITIC_MARKER))
        return { content: JSON.stringify({ decision: 'CONTINUE', reasoning: 'enough', confidence: 0.9 }) };
      if (system(request).startsWith(SUMMARIZER_MARKER)) return { content: 'Computed 2+2.' };
      if (system(request).startsWith('Researcher')) return { answer: 'Paris.' };
      agentCalls += 1;
      if (agentCalls === 1)
        return {
          thought: 'Adding the numbers needs the calculator.',
          toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }],
        };
      if (agentCalls === 2)
        return {
          thought: 'The capital is a lookup for the researcher.',
          toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'Capital of France?' } }],
        };
      return { answer: '4, and the capital is Paris.' };
    };
    const query = `What is 2+2, and what is the capital of France? ${'Please be precise. '.repeat(10)}`;
    const run = await harness.start(responder, query, {
      // Advice only: a CONTINUE that acted would end the run before the delegation this test reads.
      critic: { onContinue: 'note' },
      subagents: { researcher: { description: 'looks things up', systemPrompt: 'Researcher: answer briefly.' } },
      history: { summaryEvery: 1 },
    });
    await run.result();

    const events = await history(run.workflowId);
    const started = events[0];
    expect(text(started?.userMetadata?.summary)).toBe(`${query.replace(/\s+/g, ' ').trim().slice(0, 119)}…`);
    expect(text(started?.userMetadata?.details)).toContain('**Tools:** all registered');
    expect(text(started?.userMetadata?.details)).toContain('**Subagents:** researcher');
    // Local activities (the run's start) are recorded as markers and carry their summary the same way. The
    // calculator is read-only: it ran ahead inside "think · step 1", so its call has no activity of its own.
    const isActivity = (event: (typeof events)[number]): boolean =>
      Boolean(event.activityTaskScheduledEventAttributes) ||
      event.markerRecordedEventAttributes?.markerName === 'core_local_activity';
    const activitySummaries = events.filter(isActivity).map((event) => text(event.userMetadata?.summary));
    expect(activitySummaries).toEqual([
      'check config, list tools',
      'think · step 1',
      'critic',
      'summarise',
      'think · step 2',
      'critic',
      'summarise',
      'think · step 3',
    ]);
    const child = events.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(text(child?.userMetadata?.summary)).toBe('delegate · researcher');

    const details = await currentDetails(run.workflowId);
    expect(details).toContain('**Status:** stopped: success');
    expect(details).toContain('**1. Thought:** Adding the numbers needs the calculator.');
    expect(details).toContain('- Action: `calculator({"expression":"2+2"})`');
    expect(details).toContain('Delegated to **researcher**');
    expect(details).toContain('**Final answer:** 4, and the capital is Paris.');
  });

  it('while a call waits, the current details say how to decide it', async () => {
    const run = await harness.start([
      {
        thought: 'The stale record should go, so I delete it.',
        toolCalls: [{ name: 'delete_record', args: { id: 'ui-1' } }],
      },
      { answer: 'done' },
    ]);
    await waitForPending(harness, run.workflowId);
    const details = await currentDetails(run.workflowId);
    expect(details).toContain('### Waiting for a decision');
    expect(details).toContain(`durable-react-agent approve ${run.workflowId} c1-1`);
    // The JSON to paste names who decides: the history then says who did.
    expect(details).toContain('{"callId":"c1-1","decision":"approve","identity":"<your name>"}');
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await run.result();
    expect(await currentDetails(run.workflowId)).not.toContain('Waiting for a decision');
  });
});
