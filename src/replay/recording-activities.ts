import { temporal } from '@temporalio/proto';
import type { CritiqueInput, CritiqueOutput } from '../shared/critic';
import { describeCall, successObservation } from '../shared/observation';
import { DEFAULT_MAX_OBSERVATION_TOKENS } from '../shared/config-defaults';
import {
  applyPromptDelta,
  DELEGATE_TOOL,
  type CallModelInput,
  type ChatMessage,
  type ModelReply,
  type PromptSnapshot,
} from '../shared/protocol';
import type { SummarizeInput, SummarizeOutput } from '../shared/summaries';
import {
  noPollerMessage,
  type RemoteToolInput,
  type RunToolInput,
  type ToolObservation,
} from '../shared/tool-protocol';
import type { PayloadDecoder } from './history-input';
import { callModelTurn, critiqueTurn, failureTurn, NEVER_ANSWERS, ranAheadCalls, summarizeTurn } from './recorded-turn';
import type {
  ModelCallFailure,
  RecordedDecision,
  RecordedModelCall,
  RecordedToolCall,
  Recording,
} from './recording-types';

/*
 * The activities of one run's history. Remote activities are three events (scheduled with the input; started with
 * the last attempt's number; completed, failed, timed out or cancelled). Local ones are one `core_local_activity`
 * marker with the result but not the input; their `summary` (user metadata) says which step or call they were.
 */

/** Counts that run on across the runs of a chain. */
export interface ChainTally {
  /** Model calls closed so far (answered or failed): where a cancellation request came. */
  completedModelCalls: number;
  /** The loop's latest step number, which names the calls of its reply (`c<step>-<n>`). */
  iteration: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Failure = temporal.api.failure.v1.IFailure;
type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
type ModelKind = RecordedModelCall['kind'];
type RawPayload = Parameters<PayloadDecoder>[0];
interface PendingCall {
  callId: string;
  tool: string;
  args: unknown;
}
type Scheduled =
  | { model: RecordedModelCall; at: Timestamp }
  | { tool: RecordedToolCall; timeoutSeconds: number | undefined; remote?: RemoteScheduled };

/** Where a remote tool's activity was scheduled, to say again what its run said when nobody polled it. */
interface RemoteScheduled {
  taskQueue: string;
  scheduleToStartSeconds: number | undefined;
}

/**
 * The input of a remote tool's activity: another worker's activity type, so it is known by the
 * contract's input, `{ tool, args, callId, idempotencyKey }`, instead of by name.
 */
function remoteToolInput(input: unknown): RemoteToolInput | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const { tool, callId, idempotencyKey } = input as Partial<RemoteToolInput>;
  const strings = [tool, callId, idempotencyKey].every((value) => typeof value === 'string');
  return strings && 'args' in input ? (input as RemoteToolInput) : undefined;
}

const MODEL_KINDS = new Set<string>(['callModel', 'summarize', 'critique']);

/** A protobuf int64 (a Long, a string or a number) or a JSON number, as a number. */
function asNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  const long = value as { toNumber?: () => number } | null | undefined;
  return typeof long?.toNumber === 'function' ? long.toNumber() : 0;
}
const millis = (time: Timestamp): number | undefined =>
  time ? asNumber(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : undefined;
function between(from: Timestamp, to: Timestamp): { durationMs?: number } {
  const [start, end] = [millis(from), millis(to)];
  return start !== undefined && end !== undefined ? { durationMs: Math.max(0, end - start) } : {};
}

/** A failure as the activity raised it: an ActivityFailure wrapper (as in local markers) is looked through. */
function reasonOf(failure: Failure): ModelCallFailure & { cancelled: boolean; timedOut: boolean } {
  const cause = failure.activityFailureInfo && failure.cause ? failure.cause : failure;
  const info = cause.applicationFailureInfo;
  return {
    message: cause.message ?? failure.message ?? 'failed',
    ...(info?.type ? { type: info.type } : cause.timeoutFailureInfo ? { type: 'TimeoutFailure' } : {}),
    ...(info?.nonRetryable ? { nonRetryable: true } : {}),
    cancelled: Boolean(cause.canceledFailureInfo),
    timedOut: Boolean(cause.timeoutFailureInfo),
  };
}

/** Reads the activity events of one run into the chain's recording. */
export class RunReader {
  private readonly scheduled = new Map<string, Scheduled>();
  private prompt: PromptSnapshot | undefined;
  /** Calls of the latest model reply that no tool activity has taken yet. */
  private pending: PendingCall[] = [];
  private readonly edits = new Map<string, unknown>();
  private readonly updates = new Map<string, RecordedDecision>();

  constructor(
    private readonly decode: PayloadDecoder,
    private readonly recording: Recording,
    private readonly tally: ChainTally,
  ) {}

  /** Reads an activity's event (or a local activity's marker); false for any other event. */
  async read(event: HistoryEvent): Promise<boolean> {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      await this.schedule(String(event.eventId), scheduled, event.eventTime);
      return true;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const entry = this.scheduled.get(String(started.scheduledEventId));
      if (entry && 'model' in entry) entry.model.attempts = started.attempt || 1;
      return true;
    }
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (closed) {
      const entry = this.scheduled.get(String(closed.scheduledEventId));
      if (entry && 'model' in entry) await this.closeModel(entry.model, event, entry.at);
      if (entry && 'tool' in entry) await this.closeTool(entry.tool, event, entry.timeoutSeconds, entry.remote);
      return true;
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return false;
    await this.readLocal(event, marker);
    return true;
  }

  /** A decision arrived: an edit changes the arguments the call will run with. */
  decided(decision: RecordedDecision, updateId: string | undefined): void {
    if (updateId) this.updates.set(updateId, decision);
    const { callId } = decision.payload;
    if (decision.message === 'decide' && decision.payload.decision === 'edit' && typeof callId === 'string')
      this.edits.set(callId, decision.payload.args);
  }

  /** The handler refused an update it had accepted: nothing changed. */
  refused(updateId: string, failure: Failure): void {
    const decision = this.updates.get(updateId);
    if (!decision) return;
    decision.refused = failure.message ?? 'refused';
    if (decision.message === 'decide' && typeof decision.payload.callId === 'string')
      this.edits.delete(decision.payload.callId);
  }

  private async schedule(
    eventId: string,
    attributes: temporal.api.history.v1.IActivityTaskScheduledEventAttributes,
    at: Timestamp,
  ): Promise<void> {
    const name = attributes.activityType?.name ?? '';
    const ours = MODEL_KINDS.has(name) || name === 'runTool';
    if (!ours && name === 'reconcileTool') return;
    const input = await this.decode(attributes.input?.payloads?.[0]);
    if (!ours) {
      const remote = remoteToolInput(input);
      if (remote) this.scheduleRemote(eventId, remote, attributes);
      return;
    }
    if (name !== 'runTool') {
      this.scheduled.set(eventId, { model: this.addModelCall(name as ModelKind, false, input), at });
      return;
    }
    const { tool, args, callId } = input as RunToolInput;
    this.pending = this.pending.filter((call) => call.callId !== callId);
    const call: RecordedToolCall = { tool, args, callId, local: false, observation: null };
    this.recording.toolCalls.push(call);
    const timeout = attributes.startToCloseTimeout?.seconds;
    this.scheduled.set(eventId, { tool: call, timeoutSeconds: timeout == null ? undefined : asNumber(timeout) });
  }

  /** A remote tool's call: recorded as a tool call, its raw result made the observation the workflow made of it. */
  private scheduleRemote(
    eventId: string,
    input: RemoteToolInput,
    attributes: temporal.api.history.v1.IActivityTaskScheduledEventAttributes,
  ): void {
    this.pending = this.pending.filter((call) => call.callId !== input.callId);
    const call: RecordedToolCall = {
      tool: input.tool,
      args: input.args,
      callId: input.callId,
      local: false,
      observation: null,
    };
    this.recording.toolCalls.push(call);
    const timeout = attributes.startToCloseTimeout?.seconds;
    const toStart = attributes.scheduleToStartTimeout?.seconds;
    this.scheduled.set(eventId, {
      tool: call,
      timeoutSeconds: timeout == null ? undefined : asNumber(timeout),
      remote: {
        taskQueue: attributes.taskQueue?.name ?? '',
        scheduleToStartSeconds: toStart == null ? undefined : asNumber(toStart),
      },
    });
  }

  /** A model call, interrupted until its close says otherwise (a run that stopped never closes it). */
  private addModelCall(kind: ModelKind, local: boolean, input: unknown): RecordedModelCall {
    const base = { local, prompt: null, interrupted: true as const, attempts: 1, turn: NEVER_ANSWERS };
    const call: RecordedModelCall =
      kind === 'callModel'
        ? {
            ...base,
            kind,
            ...(input ? { input: input as CallModelInput, prompt: this.rebuild(input as CallModelInput) } : {}),
          }
        : kind === 'summarize'
          ? { ...base, kind, ...(input ? { input: input as SummarizeInput } : {}) }
          : { ...base, kind, ...(input ? { input: input as CritiqueInput } : {}) };
    this.recording.modelCalls.push(call);
    return call;
  }

  /** The whole prompt of a `callModel` input: given, or rebuilt on the run's previous one. */
  private rebuild(input: CallModelInput): ChatMessage[] | null {
    if (input.messages) return input.messages;
    if (!input.prompt) return null;
    const messages = applyPromptDelta(this.prompt, input.prompt);
    this.prompt = messages ? { seq: input.prompt.seq, messages } : undefined;
    return messages;
  }

  private async closeModel(call: RecordedModelCall, event: HistoryEvent, at: Timestamp): Promise<void> {
    Object.assign(call, between(at, event.eventTime));
    const failure =
      event.activityTaskFailedEventAttributes?.failure ?? event.activityTaskTimedOutEventAttributes?.failure;
    if (event.activityTaskCompletedEventAttributes)
      await this.answered(
        call,
        event.activityTaskCompletedEventAttributes.result?.payloads?.[0],
        call.kind === 'callModel' ? call.input?.label : undefined,
      );
    else if (failure) this.failed(call, failure);
  }

  private async answered(call: RecordedModelCall, result: RawPayload, label: string | undefined): Promise<void> {
    const output = await this.decode(result);
    delete call.interrupted;
    this.tally.completedModelCalls += 1;
    switch (call.kind) {
      case 'callModel':
        call.output = output as ModelReply;
        call.turn = callModelTurn(call.output, call.input?.maxTokens);
        this.replied(call.output, label);
        return;
      case 'summarize':
        call.output = output as SummarizeOutput;
        call.turn = summarizeTurn(call.output);
        return;
      case 'critique':
        call.output = output as CritiqueOutput;
        call.turn = critiqueTurn(call.output);
    }
  }

  private failed(call: RecordedModelCall, failure: Failure): void {
    const { cancelled, timedOut, ...reason } = reasonOf(failure);
    if (cancelled) return; // stays interrupted
    delete call.interrupted;
    this.tally.completedModelCalls += 1;
    call.failure = reason;
    // A call that timed out never got an answer: the replay's must not get one either.
    call.turn = timedOut ? NEVER_ANSWERS : failureTurn(reason);
  }

  /** The calls of a reply, named as the workflow names them (`c<step>-<n>`), wait for their tool activities. */
  private replied(reply: ModelReply, label: string | undefined): void {
    const step = /step (\d+)/.exec(label ?? '')?.[1];
    // The forced final answer is no step (its label says so); an unlabelled call is taken for the next step.
    if (step !== undefined) this.tally.iteration = Number(step);
    else if (!label?.includes('forced')) this.tally.iteration += 1;
    // Calls a read-only tool answered inside the model call are recorded with the reply: no activity follows.
    const ahead = ranAheadCalls(reply);
    this.recording.toolCalls.push(...ahead);
    this.pending = (reply.type === 'tool_calls' ? reply.calls : [])
      .map((call, index) => ({ callId: `c${this.tally.iteration}-${index + 1}`, tool: call.tool, args: call.args }))
      .filter((call) => !ahead.some((done) => done.callId === call.callId));
  }

  private async closeTool(
    call: RecordedToolCall,
    event: HistoryEvent,
    timeoutSeconds: number | undefined,
    remote?: RemoteScheduled,
  ) {
    const completed = event.activityTaskCompletedEventAttributes;
    const failure = event.activityTaskFailedEventAttributes?.failure;
    const timedOut = event.activityTaskTimedOutEventAttributes?.failure;
    if (completed && remote) {
      const output = await this.decode(completed.result?.payloads?.[0]);
      const { config } = this.recording.input;
      const maxTokens = Number(config?.history?.maxObservationTokens) || DEFAULT_MAX_OBSERVATION_TOKENS;
      // As the workflow built it (remote-tool.ts), which keeps the whole text of a result over
      // `summarizeObservationsOver` for its summary.
      const over = config?.history?.summarizeObservationsOver;
      call.observation = successObservation(output, maxTokens, typeof over === 'number' ? over : undefined);
    } else if (completed) call.observation = (await this.decode(completed.result?.payloads?.[0])) as ToolObservation;
    else if (failure) call.failure = reasonOf(failure).message;
    else if (
      remote &&
      timedOut?.timeoutFailureInfo?.timeoutType === temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
    ) {
      const waitedMs = remote.scheduleToStartSeconds === undefined ? undefined : remote.scheduleToStartSeconds * 1000;
      call.failure = noPollerMessage(call.tool, remote.taskQueue, waitedMs);
    }
    // The workflow says `timed out after <the tool's timeout>`; the history has it in seconds (approximate when the
    // tool's timeout was written in other units, e.g. '2m').
    else if (event.activityTaskTimedOutEventAttributes)
      call.failure = timeoutSeconds === undefined ? 'timed out' : `timed out after ${timeoutSeconds}s`;
    else call.interrupted = true;
  }

  private async readLocal(event: HistoryEvent, marker: temporal.api.history.v1.IMarkerRecordedEventAttributes) {
    const data = (await this.decode(marker.details?.data?.payloads?.[0])) as
      | { activity_type?: string; attempt?: number; complete_time?: Timestamp; original_schedule_time?: Timestamp }
      | undefined;
    const kind = data?.activity_type ?? '';
    const summary = await this.decode(event.userMetadata?.summary);
    const label = typeof summary === 'string' ? summary : undefined;
    const result = marker.details?.result?.payloads?.[0];
    if (MODEL_KINDS.has(kind)) {
      const call = this.addModelCall(kind as ModelKind, true, undefined);
      Object.assign(call, { attempts: data?.attempt || 1 }, between(data?.original_schedule_time, data?.complete_time));
      if (marker.failure) this.failed(call, marker.failure);
      else await this.answered(call, result, label);
      return;
    }
    if (kind !== 'runTool') return;
    const call: RecordedToolCall = { ...this.takeLocalCall(label), local: true, observation: null };
    this.recording.toolCalls.push(call);
    if (!marker.failure) call.observation = (await this.decode(result)) as ToolObservation;
    else if (reasonOf(marker.failure).cancelled) call.interrupted = true;
    else call.failure = reasonOf(marker.failure).timedOut ? 'timed out' : reasonOf(marker.failure).message;
  }

  /**
   * Which call of the latest reply a local tool activity ran: the one its summary shows (`tool · name(args)`, with a
   * person's edit applied), else the first of its tool, else the first waiting one.
   */
  private takeLocalCall(summary: string | undefined): PendingCall {
    const argsOf = (call: PendingCall) => (this.edits.has(call.callId) ? this.edits.get(call.callId) : call.args);
    const named = summary === undefined ? undefined : /^tool · ([^(]*)\(/.exec(summary)?.[1];
    let index = this.pending.findIndex((call) => `tool · ${describeCall(call.tool, argsOf(call), 60)}` === summary);
    if (index < 0 && named !== undefined) index = this.pending.findIndex((call) => call.tool === named);
    if (index < 0 && named === undefined) index = this.pending.findIndex((call) => call.tool !== DELEGATE_TOOL);
    const [call] = index < 0 ? [] : this.pending.splice(index, 1);
    return call ? { ...call, args: argsOf(call) } : { tool: named ?? '', args: null, callId: '' };
  }
}
