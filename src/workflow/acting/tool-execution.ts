import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { ParsedToolCall } from '../../shared/protocol';
import { describeCall, errorObservation } from '../../shared/observation';
import {
  noPollerMessage,
  type ReconcileOutcome,
  type RemoteToolPlacement,
  type StepEffect,
  type ToolInfo,
  type ToolObservation,
  type RunToolInput,
} from '../../shared/tool-protocol';
import { activityFailureMessage, reconcileTool, runLocalTool, runTool } from '../activity-proxies';
import { awaitDecision } from '../people/human-loop';
import { settleNeeds } from './call-needs';
import { countDecision } from '../record/metrics';
import { keyPrefix, takeRanAhead } from './run-ahead';
import type { RunState } from '../record/run-state';
import { toolSettled, toolStarted } from '../record/run-activity';
import { recordToolTime } from '../record/cost-ledger';
import { fullTextOver } from './long-observations';
import { neverPickedUp, refusedArguments, runRemoteTool } from './remote-tool';
import { parseDuration } from '../../shared/duration';
import { ErrorType, errorMessage } from '../../shared/errors';

/* Running one admitted tool call as its activity, and the toolRuns slot it holds while it does. */

function failureMessage(error: unknown, tool: ToolInfo, remote: RemoteToolPlacement | undefined): string {
  if (remote && neverPickedUp(error))
    return noPollerMessage(tool.name, remote.taskQueue, parseDuration(remote.scheduleToStartTimeout) ?? undefined);
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    return `timed out after ${tool.timeout}`;
  }
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return errorMessage(error);
}

/**
 * Keyed on the chain's first run ID, which continue-as-new keeps: a later run reusing the workflow ID gets new keys,
 * so a de-duplicating API does not drop its effects.
 */
function idempotencyKey(callId: string): string {
  return `${keyPrefix()}:${callId}`;
}

/**
 * Runs a tool call as its activity (local when the tool says so), unless the model call ran it ahead; a failure the
 * tool cannot recover from is an observation. A call whose outcome nobody saw is reconciled first when the tool can
 * (see {@link settleUnseen}).
 */
export async function execute(state: RunState, call: ParsedToolCall, tool: ToolInfo): Promise<ToolObservation> {
  state.events.emit({ type: 'tool_started', callId: call.callId, tool: call.tool });
  const ahead = takeRanAhead(state, call);
  if (ahead) {
    recordToolTime(state.cost, call.tool, { ms: 0 }); // it ran inside the model call, whose time it was
    return ahead;
  }
  toolStarted(state.activity, call.tool);
  try {
    const observation = await runOnce(state, call, tool);
    if (!tool.reconciles) return observation;
    return await settleUnseen(state, call, tool, observation);
  } finally {
    toolSettled(state.activity, call.tool);
  }
}

/**
 * One run of the tool's activity, its retries included; a lost outcome is an observation that says so. `rerun`: a
 * person said to run it again, so its first attempt must not ask `reconcile` (a local tool asks before every first
 * attempt, and would find the same `unknown` the person just overruled); its retries still do, or each would repeat
 * the effect unchecked.
 */
async function runOnce(state: RunState, call: ParsedToolCall, tool: ToolInfo, rerun = false): Promise<ToolObservation> {
  const reconcile = tool.reconciles ? { reconcile: true as const, ...(rerun ? { rerun: true as const } : {}) } : {};
  const { remote } = tool;
  const local = tool.local === true && remote === undefined;
  const startedMs = Date.now();
  let attempts: number | undefined;
  try {
    if (remote) {
      const refused = await refusedArguments(state, call);
      if (refused) return refused;
      return await runRemoteTool(state, call, tool, remote, idempotencyKey(call.callId));
    }
    const runActivity = (answers: RunToolInput['answers']) =>
      (local ? runLocalTool : runTool).executeWithOptions(
        {
          summary: `tool · ${describeCall(call.tool, call.args, 60)}`,
          startToCloseTimeout: tool.timeout,
          retry: tool.retry,
        },
        [
          {
            tool: call.tool,
            args: call.args,
            callId: call.callId,
            maxObservationTokens: state.config.history.maxObservationTokens,
            ...fullTextOver(state),
            idempotencyKey: idempotencyKey(call.callId),
            ...reconcile,
            ...(answers ? { answers } : {}),
          },
        ],
      );
    // A call that stops to ask its run something (an MCP server's request, or its task) is made again with the answer.
    const observation = await settleNeeds(state, call, await runActivity(undefined), runActivity);
    attempts = observation.attempts;
    return observation;
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Reached when the tool's own attempts are used up by timeouts, worker crashes, or workers without the tool:
    // the last is a call that never ran, as when the run itself refuses an unknown tool.
    // A local activity's failure arrives as the ApplicationFailure itself, a remote one's as the ActivityFailure's cause.
    const failure = error instanceof ActivityFailure ? error.cause : error;
    const missing = failure instanceof ApplicationFailure && failure.type === ErrorType.ToolNotOnThisWorker;
    const kind = missing ? 'unknown_tool' : 'tool_error';
    const observation = errorObservation(call.tool, call.args, failureMessage(error, tool, remote), kind);
    const usedUp = error instanceof ActivityFailure && error.retryState === 'MAXIMUM_ATTEMPTS_REACHED';
    attempts = usedUp ? tool.retry.maximumAttempts : 1;
    // A timed-out attempt (start-to-close or heartbeat: a hung call or a lost worker) may have had its effect.
    // A remote call nobody picked up never started.
    const lost = error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && !neverPickedUp(error);
    const effect = lost ? { effect: { attempts, mayHaveHappened: true, noticedBy: 'workflow' as const } } : {};
    return usedUp ? { ...observation, attempts, ...effect } : { ...observation, ...effect };
  } finally {
    // Workflow time, so it replays the same: from the task that scheduled the call to the one that got its result.
    recordToolTime(state.cost, call.tool, { ms: Date.now() - startedMs, attempts, local });
  }
}

/** Rounds of reconcile-then-run a call gets before its last outcome stands: a call that keeps timing out ends. */
const MAX_RECONCILE_ROUNDS = 3;

/**
 * For a tool that can reconcile: a call whose attempts ran out by timeouts or lost
 * workers is looked up (`reconcileTool`) before the model hears it failed; `done` takes the result found, `not_done`
 * runs it again, `unknown` (here, or from a retried attempt inside the activity) asks a person through the approval
 * path: approve runs it again, respond treats it as done with the given result, reject skips it.
 */
async function settleUnseen(
  state: RunState,
  call: ParsedToolCall,
  tool: ToolInfo,
  first: ToolObservation,
): Promise<ToolObservation> {
  let latest = first;
  let attempts = first.attempts ?? first.effect?.attempts ?? 1;
  // What the earlier rounds found: kept on the final observation when the latest run saw its own outcome.
  let earlier: StepEffect | undefined;
  for (let round = 1; round <= MAX_RECONCILE_ROUNDS; round += 1) {
    const own = latest.effect;
    if (!own?.mayHaveHappened) break;
    let verdict = own.reconcile;
    let detail = own.detail;
    if (own.noticedBy === 'workflow') {
      const found = await lookUp(state, call);
      verdict = found.verdict;
      detail = found.detail;
      const evidence: StepEffect = {
        attempts,
        mayHaveHappened: true,
        noticedBy: 'workflow',
        reconcile: verdict,
        ...(detail !== undefined ? { detail } : {}),
      };
      if (verdict === 'done' && found.observation) return { ...found.observation, attempts, effect: evidence };
      earlier = evidence;
    } else if (verdict === 'unknown') {
      earlier = { ...own, attempts };
    } else {
      // The activity already acted on its verdict: took the result found (`done`) or ran the handler (`not_done`).
      break;
    }
    let approved = false;
    if (verdict === 'unknown') {
      const pendingId = round === 1 ? `${call.callId}:uncertain` : `${call.callId}:uncertain-${round}`;
      const resolution = await awaitDecision(state, pendingId, tool, call.args, detail !== undefined ? { detail } : {});
      countDecision(resolution.decision.kind);
      earlier = { ...earlier, decision: resolution.decision };
      if (resolution.outcome === 'observe') {
        const truncated = resolution.truncated === true;
        return { text: resolution.text, isError: resolution.isError, truncated, attempts, effect: earlier };
      }
      approved = true;
    }
    latest = await runOnce(state, call, tool, approved);
    attempts += latest.attempts ?? latest.effect?.attempts ?? 1;
  }
  // Lost again on the last round: its own evidence; otherwise what the earlier rounds found, with every attempt.
  const effect = latest.effect?.mayHaveHappened ? latest.effect : (earlier ?? latest.effect);
  const decided = earlier?.decision && !effect?.decision ? { decision: earlier.decision } : {};
  return effect ? { ...latest, attempts, effect: { ...effect, ...decided, attempts } } : latest;
}

/** Asks the tool's `reconcile` on a worker; a lookup that keeps failing has found nothing out: `unknown`. */
async function lookUp(state: RunState, call: ParsedToolCall): Promise<ReconcileOutcome> {
  const key = idempotencyKey(call.callId);
  try {
    return await reconcileTool.executeWithOptions(
      { summary: `reconcile · ${describeCall(call.tool, call.args, 60)}` },
      [
        {
          tool: call.tool,
          args: call.args,
          callId: call.callId,
          idempotencyKey: key,
          maxObservationTokens: state.config.history.maxObservationTokens,
          ...fullTextOver(state),
        },
      ],
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    return { verdict: 'unknown', detail: `reconcile failed: ${activityFailureMessage(error)}` };
  }
}

/** Whether an admitted call reached its tool; a call that did not gives its `toolRuns` slot back. */
export interface RunSlot {
  ran: boolean;
}

/** Runs the tool's activity; a call the worker refuses (unknown tool, arguments the tool refuses) did not run. */
export async function executeInSlot(
  state: RunState,
  call: ParsedToolCall,
  tool: ToolInfo,
  slot: RunSlot,
): Promise<ToolObservation> {
  slot.ran = true; // a call cut short while running still ran: its side effects may have happened
  const observation = await execute(state, call, tool);
  if (observation.errorKind === 'unknown_tool' || observation.errorKind === 'invalid_arguments') slot.ran = false;
  return observation;
}
