import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  isCancellation,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { installConversationHandlers, nextTurn, startConversation } from './conversation';
import { installEventHandlers } from './record/event-log';
import { eventText } from '../shared/events';
import { ErrorType, errorMessage } from '../shared/errors';
import { getPromptQuery, getScratchpadQuery, getStatusQuery, getTraceQuery } from '../shared/messages';
import type { ToolInfo } from '../shared/tool-protocol';
import { type AgentWorkflowInput, type ReActResult } from '../shared/types';
import { ZERO_USAGE } from '../shared/cost';
import { publishStatus, searchAttributesEnabled, statusUpsertDue, toStatus } from './record/agent-status';
import type { AgentStatusValue } from '../shared/search-attributes';
import { catalogProblem } from './acting/catalog-checks';
import { clarify, installHumanHandlers } from './people/human-loop';
import {
  installBudgetHandlers,
  markTimeUp,
  openBudgetRequest,
  reachLimit,
  settleBudgetRequest,
} from './people/budget-request';
import { invalidInput, lookUpTools, startRun } from './record/run-start';
import { modelFailure } from './activity-proxies';
import { renderScratchpad, visibleThought, type ModelReply } from '../shared/protocol';
import { createRunState, recordError, stopRun, toResult, toTrace, type RunState } from './record/run-state';
import { enterPhase } from './record/run-activity';
import { checkBeforeThinking, findPhrase, phrasesOf } from './limits/termination';
import { loopCallAllowance, rawPromptTokens } from './limits/token-budget';
import { thoughtPolicy, validateThought } from './thinking/thought';
import { continueAsNewNow, shouldContinueAsNew } from './continue-as-new';
import { contextLengthFailure, fitContext, recoverFromRefusal } from './thinking/context-window';
import { critiqueIteration } from './thinking/critic-step';
import { refreshDetails } from './record/ui-details';
import { countFinished, countIteration } from './record/metrics';
import type { AgentHooks } from './hooks';
import { acceptFinalAnswer, acceptRefusal, forceFinalAnswer } from './thinking/final-answer';
import { promptFor, think } from './thinking/thinking';
import { summarizeConversationIfDue } from './thinking/summaries';
import { actOnToolCalls } from './acting/tool-step';
import { traceSteps } from '../shared/step-archive';
import { carriedFromSeed } from './record/seed';
import { offerRunAhead } from './acting/run-ahead';
import { resolveRuleSet } from './rule-sets';
import { countRejectedThought, startIteration } from './record/run-counters';
import { addFeedback, clearGuidance, setCriticAction, type CriticAction } from './record/prompt-state';
import { costSummary } from './record/cost-ledger';
import { warnIfUncounted } from './record/engine-action-counter';
import { costBudgetReached } from './limits/cost-budget';

/** 1 when the status published after the run's last event will be an upsert: that event's cost counts it. */
function due(state: RunState, status?: AgentStatusValue): number {
  return statusUpsertDue(state, status) ? 1 : 0;
}

/** One iteration: check limits, think, validate, act. */
async function iterate(state: RunState, tools: ReadonlyMap<string, ToolInfo>): Promise<void> {
  const { config } = state;
  // A conversation's iteration cap is per turn.
  const iterations = state.counters.iterations - (state.conversation?.iterationsAtTurnStart ?? 0);
  const used = { iterations, tokensUsed: state.counters.usage.totalTokens };
  // The critic's verdict may decide this iteration (set only when the run's `critic` setting says verdicts act).
  const criticAction = state.prompt.criticAction;
  setCriticAction(state.prompt, undefined);
  if (criticAction?.type === 'reissue') {
    const capped = checkBeforeThinking(used, state.budget.limits, 0);
    if (capped) return reachLimit(state, capped.reason, capped.detail);
    return reissue(state, criticAction, tools);
  }
  const answering = criticAction?.type === 'answer';
  if (answering) addFeedback(state.prompt, CRITIC_ANSWER_INSTRUCTION);
  let messages = promptFor(state, state.prompt.feedback);
  // The iteration cap first (nothing is compacted for a call that will not be made), then a prompt over the context
  // window is compacted, and the budget judges the prompt that would really be sent.
  const capped = checkBeforeThinking(used, state.budget.limits, 0);
  if (capped) return reachLimit(state, capped.reason, capped.detail);
  const fitted = await fitContext(state, messages, () => promptFor(state, state.prompt.feedback));
  if ('refused' in fitted) return stopRun(state, 'token_budget', fitted.refused);
  messages = fitted.messages;
  const limit = checkBeforeThinking(used, state.budget.limits, rawPromptTokens(messages));
  if (limit) return reachLimit(state, limit.reason, limit.detail);
  // `limits.cost`, priced with the run's recorded price (a run whose model has none was refused).
  const overCost = costBudgetReached(state, messages);
  if (overCost !== null) return reachLimit(state, 'cost_budget', overCost);
  // The budget is a hard cap, with room kept for the forced final answer.
  const allowed = loopCallAllowance(state, messages);
  if ('refused' in allowed) return reachLimit(state, 'token_budget', allowed.refused);

  startIteration(state.counters);
  enterPhase(state.activity, 'thinking');
  countIteration();
  let reply: ModelReply;
  try {
    reply = await think(
      state,
      messages,
      // The critic judged every part of the task answered: no tools are offered for this call.
      answering ? [] : [...tools.keys()],
      `think · step ${state.counters.iterations}`,
      allowed.maxTokens,
    );
  } catch (error) {
    const refusal = contextLengthFailure(error);
    if (!refusal) throw error;
    // The provider counted the prompt and it did not fit: learn the window, fold older steps and think again.
    if (await recoverFromRefusal(state, refusal, messages)) return;
    return stopRun(state, 'token_budget', `the prompt does not fit the model's context window: ${refusal.message}`);
  }
  clearGuidance(state.prompt);
  switch (reply.type) {
    case 'malformed':
      recordError(state, 'malformed_output', reply.problem);
      addFeedback(state.prompt, reply.problem);
      return;
    case 'final_answer': {
      if (!acceptFinalAnswer(state, reply, reply.answer)) return;
      const failure = findPhrase(
        `${visibleThought(reply.thought, reply.reasoningChars)}\n${reply.answer}`,
        phrasesOf(config.stopWhen, 'failure'),
      );
      if (failure) return stopRun(state, 'failure', `the answer contains the failure phrase "${failure}"`);
      return stopRun(state, 'success', 'the model gave a final answer');
    }
    case 'refusal':
      acceptRefusal(state, reply);
      return stopRun(state, 'failure', `the model refused: ${eventText(reply.refusal, 300)}`);
    case 'clarification': {
      if (!config.approvals.clarification) {
        const feedback = 'Asking the user is disabled in this run: decide with the tools and what you know.';
        recordError(state, 'malformed_output', feedback);
        addFeedback(state.prompt, feedback);
        return;
      }
      // Like a final answer, a question needs no separate thought: the question says what is missing.
      const ids = { callId: `c${state.counters.iterations}-1`, ...serverCallIdOf(reply.callId) };
      return clarify(state, reply, ids, reply.question, reply.usage);
    }
    case 'tool_calls':
      if (answering) {
        // No tools were offered; the critic only advises, so the next iteration offers them again.
        const feedback = 'No tools were offered for that reply: give the final answer, or explain what is missing.';
        recordError(state, 'malformed_output', feedback);
        addFeedback(state.prompt, feedback);
        return;
      }
      return act(state, reply, tools);
  }
}

/** What the next call is told when the critic judged every part of the task answered. */
const CRITIC_ANSWER_INSTRUCTION =
  'The critic judged every part of the task answered by your findings. No tools are offered now: give the final answer.';

/**
 * A refinement that acts: the latest call runs again with the critic's refined query, as this iteration's
 * call, through the same admission, confirmation, caps and stall detection as a call the model made.
 */
async function reissue(
  state: RunState,
  action: CriticAction & { type: 'reissue' },
  tools: ReadonlyMap<string, ToolInfo>,
): Promise<void> {
  startIteration(state.counters);
  countIteration();
  const call = {
    callId: `c${state.counters.iterations}-1`,
    tool: action.tool,
    args: action.args,
    argumentsText: JSON.stringify(action.args),
  };
  const thought = `The critic asked for ${action.tool} again with a refined query: ${action.refinedQuery}`;
  await actOnToolCalls(state, { thought }, [call], tools, ZERO_USAGE);
  await critiqueIteration(state);
}

/** The server's ID of a call, kept to be sent back to it exactly; '' is none. */
function serverCallIdOf(id: string): { serverCallId?: string } {
  return id !== '' ? { serverCallId: id } : {};
}

/** A reply with tool calls: validate the thought, check the phrases, then run the calls. */
async function act(
  state: RunState,
  reply: ModelReply & { type: 'tool_calls' },
  tools: ReadonlyMap<string, ToolInfo>,
): Promise<void> {
  const { config } = state;
  if (reply.calls.length > config.limits.maxToolCallsPerReply) {
    // Refused before anything is scheduled: one reply must not be able to cost a long workflow task.
    const feedback =
      `Your reply made ${reply.calls.length} tool calls; at most ${config.limits.maxToolCallsPerReply} are allowed in one ` +
      'reply. Make fewer calls at once.';
    recordError(state, 'malformed_output', feedback);
    addFeedback(state.prompt, feedback);
    return;
  }
  // The called tools' names let validation refuse thoughts that only restate the calls.
  const calledTools = reply.calls.map((call) => call.tool);
  // Other entries (a compaction's failed summary) may stand between: any refused thought of the previous iteration.
  const refusedLastTime = state.counters.errorHistory.some(
    (entry) => entry.kind === 'invalid_thought' && entry.iteration === state.counters.iterations - 1,
  );
  const policy = thoughtPolicy(config);
  const problem = validateThought(reply.thought, config, calledTools, policy, refusedLastTime);
  if (problem !== null) {
    countRejectedThought(state.counters);
    recordError(state, 'invalid_thought', problem);
    addFeedback(state.prompt, problem);
    return;
  }
  // Phrases are matched in what the model wrote, not in reasoning it gave apart: musing about a phrase is not saying it.
  const said = visibleThought(reply.thought, reply.reasoningChars);
  const success = findPhrase(said, phrasesOf(config.stopWhen, 'success'));
  if (success) {
    if (!acceptFinalAnswer(state, reply, said)) return;
    return stopRun(state, 'success', `the thought contains the success phrase "${success}"`);
  }
  const failure = findPhrase(said, phrasesOf(config.stopWhen, 'failure'));
  if (failure) return stopRun(state, 'failure', `the thought contains the failure phrase "${failure}"`);
  // Call IDs are the workflow's own (iteration and position): unique in the run whatever the provider sends, short
  // enough to type in `durable-react-agent approve`, and a stale decision can never match a newer call.
  // The server's own ID is kept beside, to be sent back to it exactly.
  const calls = reply.calls.map((call, index) => ({
    ...call,
    callId: `c${state.counters.iterations}-${index + 1}`,
    ...serverCallIdOf(call.callId),
  }));
  await actOnToolCalls(state, reply, calls, tools, reply.usage);
  await critiqueIteration(state);
}

/** The run, inside a scope that the time budget (a durable timer) cancels; it may hand over to a new run. */
async function runLoop(state: RunState, tools: ReadonlyMap<string, ToolInfo>): Promise<void> {
  const loop = new CancellationScope();
  let timer = new CancellationScope();
  const armTimer = () => {
    const timeoutSeconds = state.budget.limits.timeoutSeconds;
    if (timeoutSeconds === undefined) return;
    // The budget counts from the chain's first run (a conversation's turn), so continue-as-new does not reset it.
    const startedAtMs = state.conversation?.turnStartedAtMs ?? state.startedAtMs;
    const remainingMs = timeoutSeconds * 1000 - (Date.now() - startedAtMs);
    timer = new CancellationScope();
    void timer
      .run(() => sleep(Math.max(remainingMs, 1)))
      .then(
        () => {
          const detail = `the time budget of ${timeoutSeconds}s ran out`;
          // Asking lets the iteration in flight finish; the loop starts no other until a person decides.
          if (state.config.limits.onReached === 'ask') {
            markTimeUp(state, detail);
            return openBudgetRequest(state, 'timeout', detail);
          }
          stopRun(state, 'timeout', detail);
          loop.cancel();
        },
        () => undefined, // the loop finished first and cancelled the timer
      );
  };
  armTimer();
  try {
    await loop.run(async () => {
      while (!state.outcome.stop) {
        if (state.budget.timeUp !== null) {
          openBudgetRequest(state, 'timeout', state.budget.timeUp); // unless another request held the slot
          const raised = await settleBudgetRequest(state);
          markTimeUp(state, null);
          if (raised) armTimer();
          continue;
        }
        await iterate(state, tools);
        refreshDetails(state);
        if (!state.outcome.stop) await summarizeConversationIfDue(state);
        if (!state.outcome.stop && state.budget.timeUp === null && shouldContinueAsNew(state))
          await continueAsNewNow(state);
      }
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // The time budget cancels only the loop; anything else cancelling it is the workflow's own cancellation.
    stopRun(state, 'cancelled', 'the run was cancelled');
  } finally {
    timer.cancel();
  }
}

/**
 * The ReAct loop, for use inside any workflow: think (activity), act (activities), repeat until a termination
 * reason. `hooks` run in the workflow (see {@link AgentHooks}).
 */
export async function runReActLoop(input: AgentWorkflowInput, hooks: AgentHooks = {}): Promise<ReActResult> {
  // Asked once, at the start: a marker missing while replaying is no answer, as the same call made live would record it.
  const rules = resolveRuleSet();
  const start = await startRun(input);
  const { config } = start;
  // A fork or continuation starts from its parent's steps; only its first run has a seed (later ones carry state).
  const seed = input.carried === undefined ? input.seed : undefined;
  const state = createRunState({
    query: input.query,
    config,
    terms: start.terms,
    workflowId: workflowInfo().workflowId,
    nowMs: Date.now(),
    searchAttributes: searchAttributesEnabled(),
    carried: input.carried ?? (seed ? carriedFromSeed(seed, start.terms, Date.now()) : undefined),
    hooks,
    rules,
    ...(start.assumedContextWindow !== undefined ? { assumedContextWindow: start.assumedContextWindow } : {}),
    ...(start.opening ? { opening: start.opening } : {}),
    ...(seed ? { seededSteps: seed.steps } : {}),
  });
  warnIfUncounted();
  setHandler(getTraceQuery, () => toTrace(state));
  installHumanHandlers(state);
  installBudgetHandlers(state);
  setHandler(getScratchpadQuery, () =>
    renderScratchpad(traceSteps(state.transcript.steps, state.transcript.stepsChars), config),
  );
  setHandler(getStatusQuery, () => toStatus(state));
  setHandler(getPromptQuery, () => state.prompt.sent ?? null);
  installEventHandlers(state.events);
  state.events.acceptDeltasWhen(
    (iteration) => state.config.modelSettings.stream && iteration === state.counters.iterations,
  );
  startConversation(state, input.carried?.conversation);
  installConversationHandlers(state);
  state.events.emit(
    state.run === 1 ? { type: 'run_started', query: eventText(input.query) } : { type: 'run_continued' },
  );

  try {
    const catalog = await lookUpTools(start);
    const problem = catalogProblem(config, catalog);
    if (problem !== null) throw invalidInput(problem);
    const tools = new Map(catalog.tools.map((tool) => [tool.name, tool]));
    offerRunAhead(state, catalog.tools);
    // A conversation answers turn after turn, until no message comes within its idle timeout. A run that took over
    // from one that was waiting for a message goes on waiting.
    let waiting = state.conversation?.awaiting !== undefined;
    do {
      if (!waiting) {
        await runLoop(state, tools);
        await forceFinalAnswer(state);
      }
      waiting = false;
    } while (await nextTurn(state));
  } catch (error) {
    if (isCancellation(error)) {
      stopRun(state, 'cancelled', 'the run was cancelled');
    } else if (modelFailure(error) !== undefined) {
      // A model error retrying cannot fix (bad key, unknown model) or retries used up: fail with its own words.
      const cause: ApplicationFailure = modelFailure(error)!;
      recordError(state, 'model_error', cause.message);
      await state.events.end('failed', cause.message, costSummary(state.cost, due(state, 'Failed')));
      publishStatus(state, 'Failed');
      countFinished('failed');
      throw ApplicationFailure.create({
        type: cause.type ?? ErrorType.ModelUnavailable,
        message: cause.message,
        nonRetryable: true,
        details: [toTrace(state)],
      });
    } else {
      // A run that fails (a refused config, a throwing hook) must not keep showing AgentStatus = Running. Handing
      // over to the next run is no failure.
      if (!(error instanceof ContinueAsNew)) {
        await state.events.end('failed', errorMessage(error), costSummary(state.cost, due(state, 'Failed')));
        publishStatus(state, 'Failed');
        countFinished('failed');
      }
      throw error;
    }
  }
  enterPhase(state.activity, 'completed');
  await state.events.end(
    state.outcome.stop?.reason ?? 'failure',
    state.outcome.stop?.detail ?? null,
    costSummary(state.cost, due(state)),
  );
  publishStatus(state);
  countFinished(state.outcome.stop?.reason ?? 'failure');
  return toResult(state, Date.now());
}

/** A ReAct agent as a durable workflow: the loop with no hooks. */
export async function reactAgentWorkflow(input: AgentWorkflowInput): Promise<ReActResult> {
  return runReActLoop(input);
}
