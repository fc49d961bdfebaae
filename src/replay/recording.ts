import type { temporal } from '@temporalio/proto';
import type { AgentWorkflowInput, ReActResult, ReActStep, ReActTrace } from '../shared/types';
import { validateAgentConfig } from '../shared/agent-config';
import { orderChain, startOf, type HistoryInput, type PayloadDecoder } from './history-input';
import { RunReader, type ChainTally } from './recording-activities';
import type { RecordedDecision, Recording } from './recording-types';

export { groupChains, orderChain, payloadDecoder, type HistoryInput, type PayloadDecoder } from './history-input';
export { loadHistoryFile, readHistoryJson } from './history-file';
export type {
  ModelCallFailure,
  RecordedDecision,
  RecordedModelCall,
  RecordedOutcome,
  RecordedToolCall,
  Recording,
} from './recording-types';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const DECISION_MESSAGES = new Set<string>(['decide', 'answer', 'decideBudget']);

/**
 * Reads one chain's histories (in any order: they are ordered by the run each continues) into a recording, decoding
 * payloads with `decode` (a file's or a client's data converter, so encrypted histories read too).
 */
export async function readRecording(histories: readonly HistoryInput[], decode: PayloadDecoder): Promise<Recording> {
  const chain = orderChain(histories);
  const first = chain[0];
  if (!first) throw new Error('no history to read');
  const firstRuns = new Set(chain.map((run) => startOf(run).firstExecutionRunId).filter(Boolean));
  if (firstRuns.size > 1) throw new Error(`the histories are ${firstRuns.size} run chains: read each on its own`);
  const started = startOf(first);
  const recordedInput = (await decode(started.input?.payloads?.[0])) as AgentWorkflowInput;
  // Read as the resolved record whichever shape the run was started with (see validateAgentConfig); a config no
  // run accepts is kept as recorded, so a run refused at its start still reads.
  const config = validateAgentConfig(recordedInput?.config ?? {});
  const input = config.ok ? { ...recordedInput, config: config.config } : recordedInput;
  const recording: Recording = {
    workflowId: first.workflowId ?? (started.workflowId || 'recorded-run'),
    workflowType: started.workflowType?.name ?? '',
    input,
    runs: chain.length,
    modelCalls: [],
    toolCalls: [],
    decisions: [],
    cancelRequested: null,
    children: [],
    earlierSteps: [],
    outcome: { status: 'running' },
  };
  const tally: ChainTally = { completedModelCalls: 0, iteration: 0 };
  for (const [index, run] of chain.entries()) {
    const runInput = index === 0 ? input : ((await decode(startOf(run).input?.payloads?.[0])) as AgentWorkflowInput);
    if (index > 0) recording.earlierSteps.push(...(runInput?.previousSteps?.steps ?? []));
    tally.iteration = runInput?.carried?.iterations ?? runInput?.seed?.totals.iterations ?? 0;
    const reader = new RunReader(decode, recording, tally);
    for (const event of run.history.events ?? []) {
      if (await reader.read(event)) continue;
      await readMessage(event, decode, recording, tally, reader);
      if (index === chain.length - 1) await readClose(event, decode, recording);
    }
  }
  takeArgsFromSteps(recording);
  return recording;
}

/** Decisions (and the edits they make to a call's arguments), cancellation requests and child workflows. */
async function readMessage(
  event: HistoryEvent,
  decode: PayloadDecoder,
  recording: Recording,
  tally: ChainTally,
  reader: RunReader,
): Promise<void> {
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
  const signaled = event.workflowExecutionSignaledEventAttributes;
  const name = accepted?.input?.name ?? signaled?.signalName;
  if (name && DECISION_MESSAGES.has(name)) {
    const payload = await decode((accepted?.input?.args ?? signaled?.input)?.payloads?.[0]);
    if (payload && typeof payload === 'object') {
      const decision: RecordedDecision = {
        message: name as RecordedDecision['message'],
        via: accepted ? 'update' : 'signal',
        payload: payload as Record<string, unknown>,
      };
      recording.decisions.push(decision);
      reader.decided(decision, accepted?.meta?.updateId ?? undefined);
    }
  }
  const completed = event.workflowExecutionUpdateCompletedEventAttributes;
  if (completed?.outcome?.failure) reader.refused(completed.meta?.updateId ?? '', completed.outcome.failure);
  if (event.workflowExecutionCancelRequestedEventAttributes)
    recording.cancelRequested ??= { afterModelCalls: tally.completedModelCalls };
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
  if (child)
    recording.children.push({ workflowId: child.workflowId ?? '', workflowType: child.workflowType?.name ?? '' });
}

/** How the chain's last run closed. */
async function readClose(event: HistoryEvent, decode: PayloadDecoder, recording: Recording): Promise<void> {
  const completed = event.workflowExecutionCompletedEventAttributes;
  if (completed) {
    recording.outcome = { status: 'completed', result: (await decode(completed.result?.payloads?.[0])) as ReActResult };
    return;
  }
  const failed = event.workflowExecutionFailedEventAttributes?.failure;
  if (failed) {
    const info = failed.applicationFailureInfo;
    const trace = (await decode(info?.details?.payloads?.[0])) as ReActTrace | undefined;
    recording.outcome = {
      status: 'failed',
      message: failed.message ?? 'failed',
      ...(info?.type ? { type: info.type } : {}),
      ...(Array.isArray(trace?.steps) ? { trace } : {}),
    };
    return;
  }
  if (event.workflowExecutionCanceledEventAttributes) recording.outcome = { status: 'cancelled' };
  if (event.workflowExecutionTerminatedEventAttributes) recording.outcome = { status: 'terminated' };
  if (event.workflowExecutionTimedOutEventAttributes) recording.outcome = { status: 'timed_out' };
  if (event.workflowExecutionContinuedAsNewEventAttributes) recording.outcome = { status: 'continued' };
}

/**
 * A local tool call's input is not recorded: its tool and arguments come from the model's reply and the decisions
 * on it. The trace, where the history holds it, says what ran for each call ID, so it has the last word.
 */
function takeArgsFromSteps(recording: Recording): void {
  const { outcome } = recording;
  const last =
    outcome.status === 'completed'
      ? outcome.result.trace.steps
      : outcome.status === 'failed'
        ? outcome.trace?.steps
        : [];
  const byCallId = new Map<string, ReActStep>();
  for (const step of [...recording.earlierSteps, ...(last ?? [])])
    if (step.action.type === 'tool_call' && !step.seeded) byCallId.set(step.action.callId, step);
  for (const call of recording.toolCalls) {
    const action = call.local ? byCallId.get(call.callId)?.action : undefined;
    if (action?.type === 'tool_call' && action.tool === call.tool) call.args = action.args;
  }
  // A result that ran ahead for a call the workflow then refused was dropped by the run: it must not answer a later
  // call with the same arguments (ran-ahead results are never errors, so an error step is a refusal).
  if (last !== undefined && last.length > 0)
    recording.toolCalls = recording.toolCalls.filter(
      (call) => !call.ranAhead || byCallId.get(call.callId)?.isError === false,
    );
}
