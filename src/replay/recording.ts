import type { temporal } from '@temporalio/proto';
import { canonicalJson } from '../shared/canonical';
import {
  applyPromptDelta,
  toModelReply,
  type CallModelInput,
  type ChatMessage,
  type LegacyModelReply,
  type ModelReply,
  type PromptSnapshot,
} from '../shared/protocol';
import type { ToolObservation } from '../shared/tool-protocol';
import type { AgentWorkflowInput, ReActResult, ReActStep, ReActTrace } from '../shared/types';
import type { ScriptedTurn } from '../testing/scripted-turn';
import { startOf, type HistoryInput, type PayloadDecoder } from './history-input';
import type { RecordedToolResult } from './replay-tools';

export { groupChains, loadHistoryFile, payloadDecoder, type HistoryInput } from './history-input';

/** A model-hitting activity of the recording: what it was asked (when the history holds it) and what it answered. */
export interface RecordedModelCall {
  kind: 'callModel' | 'summarize' | 'critique';
  local: boolean;
  /** A remote callModel's input (its prompt as a delta; local calls record none). */
  input?: CallModelInput;
  /** The whole prompt, rebuilt from the run's deltas; null where the history does not hold it. */
  prompt: ChatMessage[] | null;
  /** What the scripted model must answer for the current worker code to return the recorded output again. */
  turn: ScriptedTurn;
  /** How long the call took in the recording (scheduled to completed), when the history says. */
  durationMs?: number;
}

/** How the chain's last run ended. */
export type RecordedOutcome =
  | { status: 'completed'; result: ReActResult }
  | { status: 'failed'; message: string; trace?: ReActTrace }
  | { status: 'cancelled' | 'terminated' | 'timed_out' | 'running' };

/** Everything replay-check needs of one recorded chain. */
export interface Recording {
  workflowId: string;
  workflowType: string;
  input: AgentWorkflowInput;
  modelCalls: RecordedModelCall[];
  toolCalls: RecordedToolResult[];
  decisions: Array<{ message: 'decide' | 'answer' | 'decideBudget'; payload: Record<string, unknown> }>;
  cancelRequested: { afterModelCalls: number } | null;
  children: Array<{ workflowId: string; workflowType: string }>;
  /** Steps of the chain's earlier runs, from the archives in the later runs' start events. */
  earlierSteps: ReActStep[];
  outcome: RecordedOutcome;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;

const millis = (time: Timestamp): number | undefined =>
  time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : undefined;
const between = (from: Timestamp, to: Timestamp): number | undefined => {
  const [start, end] = [millis(from), millis(to)];
  return start !== undefined && end !== undefined ? Math.max(0, end - start) : undefined;
};
const MODEL_ACTIVITIES = new Set(['callModel', 'summarize', 'critique']);
const DECISIONS = new Set(['decide', 'answer', 'decideBudget']);

function usageTurn(usage: unknown): Pick<ScriptedTurn, 'usage'> {
  const u = usage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
  return u && typeof u.totalTokens === 'number' ? { usage: { ...u } } : {};
}

/** The completion that makes the current worker return `output` for a model activity of this kind. */
function turnFor(kind: RecordedModelCall['kind'], output: unknown): ScriptedTurn {
  if (kind === 'summarize') {
    const summary = output as { summary?: string; usage?: unknown };
    return { content: summary.summary ?? '', ...usageTurn(summary.usage) };
  }
  if (kind === 'critique') {
    // A malformed verdict's text is not kept: any text without a JSON object gives the same outcome.
    const critique = output as { verdict?: unknown; usage?: unknown };
    return {
      content: critique.verdict ? JSON.stringify(critique.verdict) : 'no verdict',
      ...usageTurn(critique.usage),
    };
  }
  const reply: ModelReply = toModelReply(output as ModelReply | LegacyModelReply);
  const message = reply.assistantMessage;
  return {
    content: message.content,
    toolCalls: (message.toolCalls ?? []).map((call) => ({
      id: call.id,
      name: call.name,
      rawArguments: call.argumentsText,
    })),
    ...usageTurn(reply.usage),
  };
}

const failureTurn = (message: string): ScriptedTurn => ({ status: 400, errorMessage: message });

/** Reads a chain's histories (oldest run first) into a recording. */
export async function readRecording(chain: readonly HistoryInput[], decode: PayloadDecoder): Promise<Recording> {
  const first = chain[0];
  if (!first) throw new Error('no history to read');
  const started = startOf(first);
  const recording: Recording = {
    workflowId: first.workflowId ?? 'recorded-run',
    workflowType: started.workflowType?.name ?? '',
    input: (await decode(started.input?.payloads?.[0])) as AgentWorkflowInput,
    modelCalls: [],
    toolCalls: [],
    decisions: [],
    cancelRequested: null,
    children: [],
    earlierSteps: [],
    outcome: { status: 'running' },
  };
  for (const [index, run] of chain.entries()) {
    if (index > 0) {
      const input = (await decode(startOf(run).input?.payloads?.[0])) as AgentWorkflowInput | undefined;
      recording.earlierSteps.push(...(input?.previousSteps?.steps ?? []));
    }
    await readRun(run.history.events ?? [], decode, recording, index === chain.length - 1);
  }
  addStepResults(recording);
  return recording;
}

/** Reads one run's events into the recording; the last run's close says how the chain ended. */
async function readRun(events: HistoryEvent[], decode: PayloadDecoder, recording: Recording, last: boolean) {
  const scheduled = new Map<string, RecordedModelCall | { tool: true; input: { tool: string; args: unknown } }>();
  const scheduledAt = new Map<string, Timestamp>();
  let prompt: PromptSnapshot | undefined;
  for (const event of events) {
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      const name = activity.activityType?.name ?? '';
      const input = (await decode(activity.input?.payloads?.[0])) as Record<string, unknown>;
      if (MODEL_ACTIVITIES.has(name)) {
        const call: RecordedModelCall = {
          kind: name as RecordedModelCall['kind'],
          local: false,
          prompt: null,
          turn: {},
        };
        scheduledAt.set(String(event.eventId), event.eventTime);
        if (name === 'callModel') {
          const modelInput = input as unknown as CallModelInput;
          call.input = modelInput;
          const messages =
            modelInput.messages ?? (modelInput.prompt ? applyPromptDelta(prompt, modelInput.prompt) : null);
          call.prompt = messages;
          prompt =
            messages && modelInput.prompt ? { seq: modelInput.prompt.seq, messages } : messages ? prompt : undefined;
        }
        recording.modelCalls.push(call);
        scheduled.set(String(event.eventId), call);
      } else if (name === 'runTool') {
        scheduled.set(String(event.eventId), { tool: true, input: input as { tool: string; args: unknown } });
      }
      continue;
    }
    const canceled = event.activityTaskCanceledEventAttributes;
    const interrupted = canceled ? scheduled.get(String(canceled.scheduledEventId)) : undefined;
    if (interrupted && 'tool' in interrupted) {
      // The run stopped (cancelled, out of time) while the tool ran: in the replay it runs until stopped too.
      recording.toolCalls.push({ ...interrupted.input, observation: null, interrupted: true });
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
    if (completed) {
      const call = scheduled.get(String(completed.scheduledEventId));
      const failure = event.activityTaskFailedEventAttributes?.failure;
      const output = failure
        ? undefined
        : await decode(event.activityTaskCompletedEventAttributes?.result?.payloads?.[0]);
      if (call && 'tool' in call) {
        recording.toolCalls.push({
          ...call.input,
          observation: (output as ToolObservation | undefined) ?? null,
          ...(failure ? { failure: failure.message ?? 'failed' } : {}),
        });
      } else if (call) {
        call.turn = failure ? failureTurn(failure.message ?? 'the model call failed') : turnFor(call.kind, output);
        const duration = between(scheduledAt.get(String(completed.scheduledEventId)), event.eventTime);
        if (duration !== undefined) call.durationMs = duration;
      }
      continue;
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = (await decode(marker.details?.data?.payloads?.[0])) as
        { activity_type?: string; complete_time?: Timestamp; original_schedule_time?: Timestamp } | undefined;
      const kind = data?.activity_type ?? '';
      if (!MODEL_ACTIVITIES.has(kind)) continue;
      const output = marker.failure ? undefined : await decode(marker.details?.result?.payloads?.[0]);
      recording.modelCalls.push({
        kind: kind as RecordedModelCall['kind'],
        local: true,
        prompt: null,
        turn: marker.failure
          ? failureTurn(marker.failure.message ?? 'the model call failed')
          : turnFor(kind as RecordedModelCall['kind'], output),
        ...(between(data?.original_schedule_time, data?.complete_time) !== undefined
          ? { durationMs: between(data?.original_schedule_time, data?.complete_time) }
          : {}),
      });
      continue;
    }
    await readMessage(event, decode, recording);
    if (last) await readClose(event, decode, recording);
  }
}

/** Decisions, cancellation requests and child workflows. */
async function readMessage(event: HistoryEvent, decode: PayloadDecoder, recording: Recording) {
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
  const signaled = event.workflowExecutionSignaledEventAttributes;
  const name = accepted?.name ?? signaled?.signalName;
  if (name && DECISIONS.has(name)) {
    const payload = await decode((accepted?.args ?? signaled?.input)?.payloads?.[0]);
    if (payload && typeof payload === 'object')
      recording.decisions.push({ message: name as 'decide', payload: payload as Record<string, unknown> });
  }
  if (event.workflowExecutionCancelRequestedEventAttributes)
    recording.cancelRequested ??= { afterModelCalls: recording.modelCalls.length };
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
  if (child)
    recording.children.push({ workflowId: child.workflowId ?? '', workflowType: child.workflowType?.name ?? '' });
}

async function readClose(event: HistoryEvent, decode: PayloadDecoder, recording: Recording) {
  const completed = event.workflowExecutionCompletedEventAttributes;
  if (completed) {
    recording.outcome = { status: 'completed', result: (await decode(completed.result?.payloads?.[0])) as ReActResult };
    return;
  }
  const failed = event.workflowExecutionFailedEventAttributes?.failure;
  if (failed) {
    const trace = (await decode(failed.applicationFailureInfo?.details?.payloads?.[0])) as ReActTrace | undefined;
    recording.outcome = { status: 'failed', message: failed.message ?? 'failed', ...(trace?.steps ? { trace } : {}) };
    return;
  }
  if (event.workflowExecutionCanceledEventAttributes) recording.outcome = { status: 'cancelled' };
  if (event.workflowExecutionTerminatedEventAttributes) recording.outcome = { status: 'terminated' };
  if (event.workflowExecutionTimedOutEventAttributes) recording.outcome = { status: 'timed_out' };
}

/**
 * Tools that ran as local activities record their result but not their call; the trace has both. A call's recorded
 * observation is what the workflow kept of the tool's result, so serving it again gives the same step.
 */
function addStepResults(recording: Recording): void {
  const { outcome } = recording;
  const last =
    outcome.status === 'completed'
      ? outcome.result.trace.steps
      : outcome.status === 'failed'
        ? (outcome.trace?.steps ?? [])
        : [];
  const remote = new Set(recording.toolCalls.map((call) => `${call.tool}:${canonicalJson(call.args)}`));
  for (const step of [...recording.earlierSteps, ...last]) {
    if (step.action.type !== 'tool_call' || step.observation === null) continue;
    if (remote.has(`${step.action.tool}:${canonicalJson(step.action.args)}`)) continue;
    recording.toolCalls.push({
      tool: step.action.tool,
      args: step.action.args,
      observation: {
        text: step.observation,
        isError: step.isError ?? false,
        truncated: step.truncated ?? false,
        ...(step.observationData !== undefined ? { data: step.observationData } : {}),
      },
    });
  }
}
