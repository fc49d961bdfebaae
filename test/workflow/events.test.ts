import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { EventsGap } from '../../src/client/events';
import type { AgentEvent } from '../../src/shared/events';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { delegatingScript, researcherSubagents } from '../support/delegation';
import { useHarness } from '../support/harness';

const harness = useHarness();

type Streamed = AgentEvent | EventsGap;

const THOUGHT = 'The invoice total needs the exact product, so I use the calculator.';
const calc = (expression: string): ScriptedTurn => ({
  thought: THOUGHT,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

/** Reads a stream until `stop` says so (then breaks off, as a consumer that disconnects) or the stream ends. */
async function collect(stream: AsyncIterable<Streamed>, stop: (event: Streamed) => boolean = () => false) {
  const seen: Streamed[] = [];
  for await (const event of stream) {
    seen.push(event);
    if (stop(event)) break;
  }
  return seen;
}

const seqs = (events: readonly Streamed[]) => events.map((event) => event.seq);
const types = (events: readonly Streamed[]) => events.map((event) => event.type);

describe('event streams', () => {
  it('follows a live run: a consumer sees the approval it must give, then every event in order to the end', async () => {
    const run = await harness.start(
      [
        {
          thought: 'The stale record has to go, and deleting needs a person.',
          toolCalls: [{ name: 'delete_record', args: { id: 'r7' } }],
        },
        { answer: 'Deleted r7.' },
      ],
      'clean up',
    );
    const seen: Streamed[] = [];
    for await (const event of run.events()) {
      seen.push(event);
      // Only the stream tells this consumer that a decision is wanted: a run that did not stream live would hang here.
      if (event.type === 'approval_pending') await harness.agents.handle(run.workflowId).approve(event.callId);
    }
    expect(types(seen)).toEqual([
      'run_started',
      'thought',
      'tool_call_requested',
      'approval_pending',
      'approval_decided',
      'tool_started',
      'tool_finished',
      'final_answer',
      'terminated',
    ]);
    expect(seqs(seen)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen[4]).toMatchObject({ callId: 'c1-1', decision: { kind: 'approve' } });
    expect(seen[6]).toMatchObject({ tool: 'delete_record', isError: false, observation: 'deleted r7' });
    expect(seen[8]).toMatchObject({ reason: 'success', run: 1 });
  });

  it('a consumer that disconnects resumes from its cursor across continue-as-new, with no gap or duplicate', async () => {
    const turns: ScriptedTurn[] = [
      {
        thought: 'The stale record has to go, and deleting needs a person.',
        toolCalls: [{ name: 'delete_record', args: { id: 'r1' } }],
      },
      ...['1+1', '2+2', '3+3', '4+4', '5+5'].map(calc),
      { answer: 'All sums done.' },
    ];
    const run = await harness.start(turns, 'sum things', { history: { maxStepsPerRun: 2 } });
    // One consumer follows the whole chain live; another leaves while the run waits for a person.
    const live = collect(run.events());
    const first = await collect(run.events(), (event) => event.type === 'approval_pending');
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const cursor = first.at(-1)!.seq;
    const rest = await collect(run.events({ after: cursor }));
    const whole = await live;

    expect(
      new Set(whole.map((event) => (event.type === 'gap' ? 0 : event.run))).size,
      JSON.stringify(whole.map((e) => [e.seq, e.type, 'run' in e ? e.run : 0])),
    ).toBeGreaterThanOrEqual(3);
    expect(seqs(whole)).toEqual(Array.from({ length: whole.length }, (_, index) => index + 1));
    expect([...first, ...rest]).toEqual(whole);
    expect(types(whole).filter((type) => type === 'run_continued').length).toBeGreaterThanOrEqual(2);
    expect(whole.at(-1)).toMatchObject({ type: 'terminated', reason: 'success' });
    // A finished chain is still readable from any cursor.
    expect(await collect(harness.agents.handle(run.workflowId).events({ after: whole.length - 2 }))).toEqual(
      whole.slice(-2),
    );
  });

  it('a consumer far behind reads what the hand-overs did not carry from the earlier runs, with no gap', async () => {
    // Each observation event holds ~4,000 characters, so each hand-over carries only the newest few events.
    const bulk = (fill: string): ScriptedTurn => ({
      thought: 'The export is needed whole, so I fetch it.',
      toolCalls: [{ name: 'bulk_text', args: { kb: 8, fill } }],
    });
    const turns = [...Array.from('abcdefgh', bulk), { answer: 'Fetched every export.' }];
    const run = await harness.start(turns, 'fetch the exports', {
      history: { maxStepsPerRun: 2 },
      limits: { maxIterations: 12 },
    });
    await run.result();

    const whole = await collect(run.events());
    expect(types(whole)).not.toContain('gap');
    expect(seqs(whole)).toEqual(Array.from({ length: whole.length }, (_, index) => index + 1));
    expect(new Set(whole.map((event) => (event.type === 'gap' ? 0 : event.run))).size).toBeGreaterThanOrEqual(4);
    const fills = whole.flatMap((event) => (event.type === 'tool_finished' ? [event.observation[0]] : []));
    expect(fills).toEqual(Array.from('abcdefgh'));
    // From a cursor in the first run, too.
    expect(await collect(run.events({ after: 3 }))).toEqual(whole.slice(3));
  });

  it('streaming adds no copy of the transcript to history: events stay in the workflow', async () => {
    const marker = 'Quarterly revenue must be summed exactly, so the calculator adds the four quarters.';
    const turns: ScriptedTurn[] = [
      { thought: marker, toolCalls: [{ name: 'calculator', args: { expression: '1+2+3+4' } }] },
      { answer: 'Revenue is 10.' },
    ];
    const quiet = await harness.start(turns, 'q');
    await quiet.result();
    const streamed = await harness.start(turns, 'q');
    const events = await collect(streamed.events());
    expect(events.find((event) => event.type === 'thought')).toMatchObject({ text: marker });

    const occurrences = async (workflowId: string) => {
      const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
      return JSON.stringify(history).split(marker).length - 1;
    };
    expect(await occurrences(streamed.workflowId)).toBe(await occurrences(quiet.workflowId));
  });

  it('refuses a bad cursor with a clear error', async () => {
    const run = await harness.start([{ answer: 'Done.' }], 'q');
    await run.result();
    await expect(collect(run.events({ after: -1 }))).rejects.toThrow(/`after` must be a whole number >= 0/);
  });

  it("a subagent's events are reachable from the parent's stream, tagged with the child", async () => {
    const run = await harness.start(
      delegatingScript([
        {
          thought: 'Squaring needs exact arithmetic, so the calculator.',
          toolCalls: [{ name: 'calculator', args: { expression: '12^2' } }],
        },
        { answer: '12 squared is 144.' },
      ]),
      'q',
      { subagents: researcherSubagents },
    );
    const seen = await collect(harness.agents.handle(run.workflowId).eventsWithChildren());
    const started = seen.find((event) => event.type === 'subagent_started');
    expect(started).toMatchObject({ agent: 'researcher', callId: 'c1-1' });
    const childId = started && 'childWorkflowId' in started ? started.childWorkflowId : '';
    const ofChild = seen.filter((event) => 'child' in event && event.child === childId);
    expect(types(ofChild)).toEqual([
      'run_started',
      'thought',
      'tool_call_requested',
      'tool_started',
      'tool_finished',
      'final_answer',
      'terminated',
    ]);
    expect(seqs(ofChild)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Parent events keep their own numbering, untouched by the child's.
    const ofParent = seen.filter((event) => !('child' in event));
    expect(seqs(ofParent)).toEqual(Array.from({ length: ofParent.length }, (_, index) => index + 1));
    // Interleaved as they arrive: the child's come after the parent's event that started it. (Arrival order, not
    // causal order: the parent's later events may arrive before the child's last; `at` orders them in time.)
    expect(seen.indexOf(ofChild[0]!)).toBeGreaterThan(seen.indexOf(started!));
    const childEnd = ofChild.at(-1) as AgentEvent;
    const parentEnd = seen.find((event) => event.type === 'terminated' && !('child' in event)) as AgentEvent;
    expect(Date.parse(childEnd.at)).toBeLessThanOrEqual(Date.parse(parentEnd.at));
  });
});

describe('following under an abort signal', () => {
  it("leaves no listener on the caller's signal however many requests the follower made", async () => {
    const turns: ScriptedTurn[] = [
      ...Array.from({ length: 8 }, (_, index) => ({
        thought: `Step ${index + 1}: the calculator gives the next figure.`,
        toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
      })),
      { answer: 'Done.' },
    ];
    const run = await harness.start(turns, 'count to eight');
    const controller = new AbortController();
    let seen = 0;
    for await (const event of run.events({ signal: controller.signal })) if (event.type !== 'gap') seen += 1;
    expect(seen).toBeGreaterThan(8);
    // The SDK adds a listener per request under a signal and never removes it: a follower of a long run leaked one
    // per long-poll (Node's MaxListenersExceededWarning past 10), each holding its finished call.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
