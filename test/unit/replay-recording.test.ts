import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, defaultDataConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  groupChains,
  loadHistoryFile,
  payloadDecoder,
  readRecording,
  type HistoryInput,
  type RecordedModelCall,
  type Recording,
} from '../../src/replay/recording';
import { callModelTurn, critiqueTurn, failureTurn } from '../../src/replay/recorded-turn';
import type { CallModelInput, ModelReply } from '../../src/shared/protocol';
import { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from '../../src/testing/scripted-model';
import { createActivities } from '../../src/worker/activities';
import { createOpenAIClient } from '../../src/worker/openai-client';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { HISTORIES_DIR } from '../support/histories';
import { createTestTools } from '../support/test-tools';

/*
 * The committed corpus read as replay-check reads it, and every recorded model answer played through the current
 * activity code (the SDK's mock activity context, the scripted model server; no Temporal server). Histories the
 * corpus does not have are in replay-recording-events.test.ts, file formats in replay-history-file.test.ts.
 */

const decode = payloadDecoder(defaultDataConverter);
const corpusFiles = (dir = HISTORIES_DIR): string[] =>
  readdirSync(dir, { encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => path.join(dir, file));
const load = (name: string): HistoryInput => loadHistoryFile(path.join(HISTORIES_DIR, `${name}.json`));
const record = (...names: string[]): Promise<Recording> => readRecording(names.map(load), decode);
const runIdOf = (input: HistoryInput) =>
  input.history.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId;

describe('reading the committed corpus', () => {
  const files = corpusFiles();
  const byName = new Map(files.map((file) => [path.basename(file, '.json'), loadHistoryFile(file)]));
  const nameOf = (input: HistoryInput) => [...byName].find(([, loaded]) => loaded === input)?.[0];

  it('loads every file and groups continue-as-new chains, whatever order the files come in', () => {
    expect(byName.size).toBe(files.length);
    const chains = groupChains([...byName.values()].reverse()).map((chain) => chain.map(nameOf));
    expect(chains).toContainEqual(['continue-as-new', 'continue-as-new-2', 'continue-as-new-3']);
    expect(chains).toContainEqual(['budget-raise', 'budget-raise-2']);
    expect(chains).toContainEqual(['subagent']);
    expect(chains).toContainEqual(['subagent-2']);
    expect(chains.flat().sort()).toEqual([...byName.keys()].sort());
    expect(chains).toHaveLength(files.length - 4);
  });

  it('joins a chain by the run each continues when the start events do not name the first run', () => {
    const runs = ['continue-as-new-3', 'continue-as-new', 'continue-as-new-2'].map((name) => {
      const { history } = load(name); // a fresh copy
      history.events![0]!.workflowExecutionStartedEventAttributes!.firstExecutionRunId = '';
      return { history };
    });
    const [chain, ...others] = groupChains(runs);
    expect(others).toEqual([]);
    expect(chain?.map(runIdOf)).toEqual(
      ['continue-as-new', 'continue-as-new-2', 'continue-as-new-3'].map((name) => runIdOf(load(name))),
    );
  });

  it('refuses to read histories of two chains as one', async () => {
    await expect(readRecording([load('success'), load('approve')], decode)).rejects.toThrow('are 2 run chains');
  });

  it('a successful run: every model answer and tool result, with the whole prompts rebuilt from the deltas', async () => {
    const recording = await record('success');
    expect([recording.workflowId, recording.input.query, recording.outcome.status]).toEqual([
      'history-success',
      'scenario success',
      'completed',
    ]);
    expect(recording.modelCalls.map((call) => [call.kind, call.local, call.output !== undefined])).toEqual([
      ['callModel', false, true],
      ['callModel', false, true],
    ]);
    expect(recording.toolCalls).toEqual([
      {
        tool: 'calculator',
        args: { expression: '6*7' },
        callId: 'c1-1',
        local: true,
        observation: expect.objectContaining({ text: '{"expression":"6*7","result":42}' }) as unknown,
        // The calculator is read-only: it ran inside the model call, whose recorded reply carries its result.
        ranAhead: true,
      },
    ]);
    const [first, second] = recording.modelCalls.map((call) => call.prompt);
    // The second prompt is the first plus the step: the tool call under the ID the server gave it, and its observation.
    expect(second?.slice(0, first?.length)).toEqual(first);
    expect(second?.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_0_0',
      content: '{"expression":"6*7","result":42}',
    });
  });

  it('a chain of three runs: one recording from the first run’s input to the last run’s result', async () => {
    const recording = await record('continue-as-new-3', 'continue-as-new', 'continue-as-new-2');
    expect([recording.runs, recording.input.carried, recording.outcome.status]).toEqual([3, undefined, 'completed']);
    expect(recording.modelCalls).toHaveLength(5);
    expect(recording.modelCalls.every((call) => call.output !== undefined)).toBe(true);
    // A continued run's first prompt is fetched from the workflow, not recorded, and later deltas build on it.
    expect(recording.modelCalls.map((call) => call.prompt !== null)).toEqual([true, true, false, false, false]);
    expect(recording.toolCalls.map((call) => [call.callId, call.args])).toEqual(
      ['1', '2', '3', '4'].map((expression, index) => [`c${index + 1}-1`, { expression }]),
    );
    expect(recording.earlierSteps.map((step) => step.iteration)).toEqual([1, 2, 3, 4]);
  });

  it('yields every kind of decision, and the arguments an edit made', async () => {
    // Who sent each one (the recording machine's client identity) is not the point here.
    const decided = async (name: string) =>
      (await record(name)).decisions.map(({ message, via, payload }) => {
        const rest = { ...payload };
        delete rest.identity;
        delete rest.channel;
        return { message, via, payload: rest };
      });
    const decisions = async (name: string): Promise<Array<Record<string, unknown>>> =>
      (await decided(name)).map(({ message, via, payload }) => ({ message, via, ...payload }));
    expect(await decisions('approve')).toEqual([
      { message: 'decide', via: 'update', decision: 'approve', callId: 'c1-1' },
    ]);
    expect(await decisions('always')).toEqual([
      { message: 'decide', via: 'update', decision: 'approve', always: true, callId: 'c1-1' },
    ]);
    expect(await decisions('reject')).toEqual([
      { message: 'decide', via: 'update', decision: 'reject', reason: 'keep it', callId: 'c1-1' },
    ]);
    expect(await decisions('respond')).toEqual([
      { message: 'decide', via: 'update', decision: 'respond', observation: 'already gone', callId: 'c1-1' },
    ]);
    expect(await decisions('clarification')).toEqual([{ message: 'answer', via: 'update', answer: 'the first' }]);
    expect((await decisions('budget-raise')).map((entry) => [entry.message, entry.decision, entry.amount])).toEqual([
      ['decideBudget', 'raise', 5],
    ]);
    expect((await decided('edit'))[0]?.payload).toEqual({ decision: 'edit', args: { id: 'd2' }, callId: 'c1-1' });
    expect((await record('edit')).toolCalls.map((call) => call.args)).toEqual([{ id: 'd2' }]);
    // Rejected and answered calls never ran.
    expect((await record('reject')).toolCalls).toEqual([]);
    expect((await record('respond')).toolCalls).toEqual([]);
    const parallel = await record('parallel-decisions');
    expect(parallel.decisions.map(({ payload }) => [payload.callId, payload.decision])).toEqual([
      ['c1-2', 'approve'],
      ['c1-3', 'edit'],
      ['c1-1', 'reject'],
    ]);
    expect(parallel.toolCalls.map((call) => [call.callId, call.args])).toEqual([
      ['c1-2', { id: 'g' }],
      ['c1-3', { id: 'h2' }],
    ]);
  });

  it('yields the cancellation request, interrupted tools, summaries and verdicts, and subagents', async () => {
    const cancelled = await record('cancellation');
    expect(cancelled.cancelRequested).toEqual({ afterModelCalls: 1 });
    expect(cancelled.toolCalls).toEqual([
      expect.objectContaining({ tool: 'wait_forever', observation: null, interrupted: true }),
    ]);
    const timedOut = await record('timeout');
    expect([timedOut.cancelRequested, timedOut.toolCalls[0]?.interrupted]).toEqual([null, true]);
    expect(timedOut.outcome.status === 'completed' && timedOut.outcome.result.terminationReason).toBe('timeout');
    const critic = await record('critic-and-summary');
    expect(critic.modelCalls.map((call) => call.kind)).toEqual(['callModel', 'critique', 'summarize', 'callModel']);
    expect(critic.modelCalls.find((call) => call.kind === 'critique')?.output).toEqual({
      verdict: { decision: 'CONTINUE', reasoning: 'enough', confidence: 0.9 },
      usage: expect.any(Object) as unknown,
    });
    expect((await record('subagent')).children).toEqual([
      { workflowId: 'history-subagent/c1-1-helper', workflowType: 'reactAgentWorkflow' },
    ]);
  });
});

describe('recorded turns played through the current activities give the recorded outputs again', () => {
  let model: ScriptedModelServer;
  let activities: ReturnType<typeof createActivities>;
  // The SDK's activity context, one per call (a shared one gathers every request's abort listener); failures the
  // tests provoke on purpose are logged at WARN, so only errors show.
  // The attempt starts now, with time left, so read-only tools run ahead as they did when the history was recorded.
  const env = () =>
    new MockActivityEnvironment(
      { currentAttemptScheduledTimestampMs: Date.now(), startToCloseTimeoutMs: 60_000 },
      { logger: new DefaultLogger('ERROR') },
    );
  beforeAll(async () => {
    model = await startScriptedModel();
    const registry = new ToolRegistry([...createBuiltinTools({ root: process.cwd() }), ...createTestTools()]);
    const openai = createOpenAIClient({ baseURL: model.baseURL });
    activities = createActivities({ openai, defaultModel: 'round-trip', registry });
  });
  afterAll(() => model.close());

  /** Runs one recorded call's activity against its turn; a call whose prompt the history lacks gets any prompt. */
  const replay = (call: RecordedModelCall, turn: ScriptedTurn = call.turn): Promise<unknown> => {
    model.script(call.input?.model ?? 'round-trip', [turn]);
    if (call.kind === 'summarize') return env().run(activities.summarize, call.input!);
    if (call.kind === 'critique') return env().run(activities.critique, call.input!);
    // The prompt goes whole (the worker would rebuild a delta from its cache); no stream (no workflow to signal).
    const input: CallModelInput = { ...call.input!, messages: call.prompt ?? [{ role: 'user', content: 'any' }] };
    delete input.prompt;
    delete input.stream;
    return env().run(activities.callModel, input);
  };

  it('for every model call of every committed history', async () => {
    const histories = corpusFiles().map(loadHistoryFile);
    let calls = 0;
    for (const chain of groupChains(histories)) {
      for (const call of (await readRecording(chain, decode)).modelCalls) {
        calls += 1;
        if (call.failure) {
          // A call that failed for good (real-models: a provider's context-length refusal) fails the same way again.
          const failure = await replay(call).then(
            () => undefined,
            (error: unknown) => error as ApplicationFailure,
          );
          // The message names the endpoint, whose port differs between the recording and this replay.
          const withoutUrl = (text: string) => text.replace(/https?:\/\/\S+/g, '<url>');
          expect(failure?.type).toBe(call.failure.type);
          expect(withoutUrl(failure?.message ?? '')).toBe(withoutUrl(call.failure.message));
          continue;
        }
        expect(await replay(call)).toEqual(call.output);
        // Nor does the answer depend on the prompt, usage included: a call the history holds no prompt for replays too.
        if (call.kind === 'callModel') expect(await replay({ ...call, prompt: null })).toEqual(call.output);
      }
    }
    expect(calls).toBeGreaterThan(40);
  });

  const base = async (): Promise<RecordedModelCall & { kind: 'callModel' }> => {
    const [call] = (await record('success')).modelCalls;
    return call as RecordedModelCall & { kind: 'callModel' };
  };
  /** Records what the current activity answers `turn` with, as a history would, then replays its reconstruction. */
  const roundTrip = async (turn: ScriptedTurn, change: Partial<CallModelInput> = {}) => {
    const recorded = await base();
    const call = { ...recorded, input: { ...recorded.input!, ...change } };
    const output = (await replay(call, turn)) as ModelReply;
    return { output, again: await replay(call, callModelTurn(output, call.input.maxTokens)) };
  };

  it('for replies the worker keeps only part of: oversized, cut off at the token limit, text mode', async () => {
    const long = await roundTrip({ content: 'a'.repeat(250_000) });
    const withCall = await roundTrip({
      content: 'short',
      toolCalls: [{ name: 'calculator', rawArguments: 'x'.repeat(250_000) }],
    });
    const cut = await roundTrip({ content: 'word '.repeat(200) }, { maxTokens: 10 });
    const text = await roundTrip(
      { content: 'Thought: add them\nAction: calculator\nAction Input: {"expression":"1+2"}' },
      { mode: 'text' },
    );
    expect([long, withCall, cut].map(({ output }) => output.type)).toEqual(['malformed', 'malformed', 'malformed']);
    expect(text.output.type).toBe('tool_calls');
    // Text mode's call ID comes from the completion's ID: equal here only because both requests are the first the
    // server got for the same model name (a replay-check replay may name its model otherwise).
    for (const { output, again } of [long, withCall, cut, text]) expect(again).toEqual(output);
  });

  it('for the critic’s unreadable verdicts: the same reason where the worker’s parser can give it', async () => {
    const [, critic] = (await record('critic-and-summary')).modelCalls;
    for (const content of [
      'no JSON at all',
      'see {not json}',
      '{"decision":"CONTINUE","reasoning":"x","confidence":2}',
    ]) {
      const output = await replay(critic!, { content });
      const again = await replay(critic!, critiqueTurn(output as Parameters<typeof critiqueTurn>[0]));
      // A verdict refused by the schema is refused again, for another reason (see critiqueTurn).
      if (content.includes('confidence')) expect(Object.keys(again as object)).toEqual(['malformed', 'usage']);
      else expect(again).toEqual(output);
    }
  });

  it('for failed calls: the same classified failure, status and message', async () => {
    const call = await base();
    for (const status of [400, 401, 404, 429, 503]) {
      const failure = await replay(call, { status, errorMessage: `scripted ${status}` }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      const { message, type, nonRetryable } = failure as ApplicationFailure;
      const again = await replay(
        call,
        failureTurn({ message, type: type ?? undefined, nonRetryable: nonRetryable ?? undefined }),
      ).catch((error: unknown) => error);
      expect(again).toMatchObject({ message, type, nonRetryable });
    }
  });
});
