import { ApplicationFailure, condition, setHandler, workflowInfo, type SignalDefinition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { PendingCall, RefusalReason } from '../../shared/approvals';
import { argsHash } from '../../shared/canonical';
import { formatDuration, parseDuration } from '../../shared/duration';
import { answerSignal, answerUpdate, decideSignal, decideUpdate, getPendingQuery } from '../../shared/messages';
import { ErrorType, errorMessage } from '../../shared/errors';
import { describeCall, truncateToTokens } from '../../shared/observation';
import { argsText, eventText } from '../../shared/events';
import { validateToolArgs } from '../activity-proxies';
import type { Checked, Resolution } from '../record/approval-book';
import { publishStatus } from '../record/agent-status';
import { countDecision, countDecisionRequest } from '../record/metrics';
import { askShouldStop, nowIso, recordError, recordStep, stopRun, type RunState } from '../record/run-state';
import type { ReActStep, ServerCallId } from '../../shared/types';
import type { TokenUsage } from '../../shared/cost';
import type { ToolInfo } from '../../shared/tool-protocol';
import type { PendingQuestion } from '../../shared/approvals';
import type { Decider } from '../../shared/identity';

/** Type of the failure an update sender gets for a refused decision or answer. */
export const INVALID_DECISION = ErrorType.InvalidDecision;

/** The failure a refused update returns; its details carry the {@link RefusalReason} callers branch on. */
export function refuse(refusal: { message: string; reason: RefusalReason }): ApplicationFailure {
  return ApplicationFailure.create({
    type: INVALID_DECISION,
    message: refusal.message,
    nonRetryable: true,
    details: [refusal.reason],
  });
}

/** Applies a decision; an edit is first re-validated by the tool's own schema (an activity on the worker). */
async function decide(state: RunState, payload: unknown, via: 'update' | 'signal') {
  const first = state.approvals.checkDecision(payload, via);
  if (!first.ok) throw refuse(first);
  if (first.value.decision.decision === 'edit') {
    const problem = await validateToolArgs({ tool: first.value.entry.call.tool, args: first.value.decision.args });
    if (problem !== null) {
      throw refuse({
        reason: 'invalid_edit',
        message: `Edit refused, call ${first.value.decision.callId} is still pending: ${problem}`,
      });
    }
  }
  // Another decision may have landed while the edit was being validated.
  const checked = state.approvals.checkDecision(payload, via);
  if (!checked.ok) throw refuse(checked);
  return state.approvals.apply(checked.value.decision, checked.value.entry, checked.value.by);
}

function answer(state: RunState, payload: unknown, via: 'update' | 'signal'): string {
  const checked = state.approvals.checkAnswer(payload, via);
  if (!checked.ok) throw refuse(checked);
  state.approvals.spend(checked.value.answer);
  const question = state.approvals.question;
  if (question) {
    question.answer = checked.value.answer.answer;
    question.by = checked.value.by;
  }
  return question?.pending.question ?? '';
}

/**
 * Installs one kind of input from a person both ways: as an update whose validator refuses a bad payload before it
 * enters history, and as a signal (the Temporal UI's form), which cannot be refused to its sender, so a bad one is
 * recorded in the error history and changes nothing.
 */
export function installPersonInput<Payload, Result>(
  state: RunState,
  update: UpdateDefinition<Result, [Payload]>,
  signal: SignalDefinition<[Payload]>,
  check: (payload: unknown) => Checked<unknown>,
  apply: (payload: unknown, via: 'update' | 'signal') => Result | Promise<Result>,
): void {
  setHandler(
    update,
    (payload) => {
      return apply(payload, 'update');
    },
    {
      validator: (payload) => {
        const checked = check(payload);
        if (!checked.ok) throw refuse(checked);
      },
    },
  );
  setHandler(signal, async (payload) => {
    try {
      await apply(payload, 'signal');
    } catch (error) {
      recordError(state, 'invalid_decision', errorMessage(error));
    }
  });
}

/** What a signed decision's verdict is held to: this run (and the first run of its chain), and workflow time now. */
function signingFacts(): { workflowId: string; firstRunId: string; nowMs: number } {
  const info = workflowInfo();
  return { workflowId: info.workflowId, firstRunId: info.firstExecutionRunId, nowMs: Date.now() };
}

/** Installs the query, the `decide` and `answer` updates (validated before they enter history) and their signals. */
export function installHumanHandlers(state: RunState): void {
  const { approvals } = state;
  setHandler(getPendingQuery, () => approvals.snapshot());
  installPersonInput(
    state,
    decideUpdate,
    decideSignal,
    // Only here, in the validator, is a signature's verdict read: validators do not run on replay.
    (payload) => approvals.checkDecision(payload, 'update', signingFacts()),
    (payload, via) => decide(state, payload, via),
  );
  installPersonInput(
    state,
    answerUpdate,
    answerSignal,
    (payload) => approvals.checkAnswer(payload, 'update', signingFacts()),
    (payload, via) => answer(state, payload, via),
  );
}

function deadlineInfo(
  state: RunState,
  within?: number,
): { ms: number; requestedAt: string; deadline: string; label: string } {
  const configured = parseDuration(state.config.approvals.timeout) ?? 24 * 3_600_000;
  const ms = within === undefined ? configured : Math.min(configured, within);
  const now = Date.now();
  return {
    ms,
    requestedAt: new Date(now).toISOString(),
    deadline: new Date(now + ms).toISOString(),
    label: formatDuration(ms),
  };
}

/**
 * Waits (durably, up to `approvals.timeout`) for a decision about one call; on timeout applies `approvals.onTimeout`.
 * With `uncertain`, the call already ran and may have had its effect: the person decides whether it runs again.
 */
export async function awaitDecision(
  state: RunState,
  callId: string,
  tool: Pick<ToolInfo, 'name' | 'parameters'>,
  args: unknown,
  uncertain?: { detail?: string },
): Promise<Resolution> {
  const { ms, requestedAt, deadline, label } = deadlineInfo(state);
  const approvers = state.config.approvals.approvers[tool.name];
  const question = uncertain
    ? `This ${tool.name} call may have happened: run ${describeCall(tool.name, args)} again, treat it as done with a result you give, or skip it?`
    : `Run ${describeCall(tool.name, args)}?`;
  const call: PendingCall = {
    callId,
    tool: tool.name,
    args,
    argsHash: argsHash(args),
    question,
    requestedAt,
    deadline,
    ...(approvers ? { approvers } : {}),
    ...(tool.parameters && !uncertain ? { parameters: tool.parameters } : {}),
    ...(uncertain ? { reason: 'uncertain_effect' as const } : {}),
    ...(uncertain?.detail !== undefined ? { detail: uncertain.detail } : {}),
  };
  const entry = state.approvals.open(call);
  publishStatus(state);
  countDecisionRequest();
  state.events.emit({
    type: 'approval_pending',
    callId,
    tool: tool.name,
    args: argsText(args),
    ...(uncertain ? { reason: 'uncertain_effect' as const } : {}),
  });
  try {
    if (await condition(() => entry.resolution !== undefined, ms)) {
      const resolution = entry.resolution as Resolution;
      state.events.emit({ type: 'approval_decided', callId, decision: resolution.decision });
      return capResponded(state, resolution);
    }
    state.events.emit({ type: 'approval_decided', callId, decision: { kind: 'timeout' } });
    const message = `no decision arrived within ${label}; the call was not run`;
    if (state.config.approvals.onTimeout === 'end') {
      stopRun(state, 'timeout', `no decision on call ${callId} (${tool.name}) arrived within ${label}`);
    }
    return {
      outcome: 'observe',
      text: `[timeout] ${describeCall(tool.name, args)}: ${message}`,
      isError: true,
      decision: { kind: 'timeout' },
    };
  } finally {
    state.approvals.close(callId);
    publishStatus(state);
  }
}

/**
 * A result a person gave (`respond`) is an observation like a tool's, so it is cut to `maxObservationTokens` as a
 * tool's is: a megabyte pasted into a decision would otherwise enter every later prompt whole.
 */
function capResponded(state: RunState, resolution: Resolution): Resolution {
  if (resolution.outcome !== 'observe' || resolution.decision.kind !== 'respond') return resolution;
  const { text, truncated } = truncateToTokens(resolution.text, state.config.history.maxObservationTokens);
  return truncated ? { ...resolution, text, truncated } : resolution;
}

/** Asks the user the model's question and waits for the answer, which becomes the observation. */
export async function askUser(
  state: RunState,
  callId: string,
  question: string,
  about?: Pick<PendingQuestion, 'form' | 'tool' | 'approvers'>,
  within?: number,
): Promise<{ text: string; answered: boolean; by?: Decider }> {
  const { ms, requestedAt, deadline, label } = deadlineInfo(state, within);
  const asked = state.approvals.ask({ callId, question, requestedAt, deadline, ...about });
  publishStatus(state);
  countDecisionRequest();
  state.events.emit({ type: 'clarification_asked', callId, question: eventText(question) });
  try {
    if (await condition(() => asked.answer !== undefined, ms)) {
      countDecision('answer');
      const by = asked.by;
      state.events.emit({
        type: 'clarification_answered',
        callId,
        answer: eventText(asked.answer ?? ''),
        ...(by ? { by } : {}),
      });
      return { text: asked.answer ?? '', answered: true, ...(by ? { by } : {}) };
    }
    countDecision('timeout');
    if (state.config.approvals.onTimeout === 'end')
      stopRun(state, 'timeout', `no answer to "${question}" within ${label}`);
    return { text: `[timeout] No answer arrived within ${label}; continue with what you know.`, answered: false };
  } finally {
    state.approvals.endQuestion(callId);
    publishStatus(state);
  }
}

/** The model asked the user a question: wait for the answer, which becomes the observation. */
export async function clarify(
  state: RunState,
  { thought, reasoningChars }: Pick<ReActStep, 'thought' | 'reasoningChars'>,
  ids: { callId: string } & ServerCallId,
  question: string,
  usage: TokenUsage,
): Promise<void> {
  const { text, by } = await askUser(state, ids.callId, question);
  const step: ReActStep = {
    iteration: state.counters.iterations,
    thought,
    ...(reasoningChars ? { reasoningChars } : {}),
    action: { type: 'clarification', question, ...ids },
    ...(by ? { answeredBy: by } : {}),
    observation: text,
    timestamp: nowIso(),
    tokenUsage: usage,
  };
  recordStep(state, step);
  const asked = askShouldStop(state, step);
  if (asked) await asked;
}
