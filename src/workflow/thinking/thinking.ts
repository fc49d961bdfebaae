import { modelSettingsOf } from '../../shared/model-settings';
import {
  promptDelta,
  tagsOf,
  type CallModelInput,
  type ChatMessage,
  type ModelReply,
  type PromptDelta,
} from '../../shared/protocol';
import { outputSchemaOf } from '../../shared/output';
import { ApplicationFailure, isCancellation, TemporalFailure, workflowInfo } from '@temporalio/workflow';
import { NON_RETRYABLE_MODEL_ERRORS } from '../../shared/errors';
import { modelActivities, openingCall } from '../activity-proxies';
import { buildMessages } from './prompt';
import { recordUsage, type RunState } from '../record/run-state';
import { rememberSent, takeOpening } from '../record/prompt-state';
import { keepRanAhead, runAheadRequest } from '../acting/run-ahead';
import { promptSteps } from '../../shared/step-archive';
import { completionCap, learnPromptRatio } from '../limits/token-budget';
import { countAbandonedModelCall, recordModelCall } from '../record/cost-ledger';

/** The next prompt: the running summary and the window of steps it does not cover yet, plus notes and feedback. */
export function promptFor(state: RunState, feedback: readonly string[]): ChatMessage[] {
  const { query, config } = state;
  const { summary, window: steps } = state.transcript;
  const { notes } = state.prompt;
  const earlierTurns = state.conversation?.history;
  return buildMessages({
    query,
    config,
    summary,
    steps: promptSteps(steps),
    feedback,
    notes,
    earlierTurns,
  });
}

/**
 * The prompt as a delta from the run's previous one, which it then replaces. A continued run's first prompt is not
 * sent at all: it is mostly the carried window, which the run's start event holds already; the worker asks for it.
 */
function nextPrompt(state: RunState, messages: ChatMessage[]): PromptDelta {
  const delta = promptDelta(state.prompt.sent, messages, state.prompt.sent === undefined && state.run > 1);
  rememberSent(state.prompt, { seq: delta.seq, messages });
  return delta;
}

/** A model call's input without its prompt, which travels as a delta or whole depending on where the call runs. */
type CallRequest = Omit<CallModelInput, 'messages' | 'prompt' | 'events'>;

/**
 * Makes the call where the run places it: an activity, or a local activity (`modelCalls: 'local'`, or a new run's
 * first call that opens locally). Returns what was recorded and whether a local activity answered.
 */
async function placeCall(
  state: RunState,
  messages: ChatMessage[],
  summary: string,
  request: CallRequest,
): Promise<{ recorded: ModelReply; local: boolean }> {
  const { terms } = state;
  const { callModel, callModelLocally } = modelActivities(terms.modelCallPolicy);
  const remotely = async () => {
    // The events since the previous call ride on this input for followers that read history.
    const events = state.events.unpublished();
    const recorded = await callModel.executeWithOptions({ summary }, [
      { prompt: nextPrompt(state, messages), ...request, ...(events ? { events } : {}) },
    ]);
    return { recorded, local: false };
  };
  // A local call's input is not recorded: it carries the whole prompt, and its events wait for the next remote call.
  const locally = async (activity: typeof callModelLocally) => {
    const recorded = await activity.executeWithOptions({ summary }, [{ messages, ...request }]);
    return { recorded, local: true };
  };
  // A new run's first call may open locally (prepareRun judged this worker's model quick), in the task that checked
  // the run's config: billed with that check as one action. Recorded with prepareRun's result, so it replays.
  const opening = takeOpening(state.prompt);
  const opener = opening?.task === workflowInfo().historyLength ? openingCall(terms.modelCallPolicy, opening) : null;
  if (opener) {
    try {
      return await locally(opener);
    } catch (error) {
      // A local activity's failure arrives as its cause (an ApplicationFailure, a TimeoutFailure), not wrapped.
      if (isCancellation(error) || !(error instanceof TemporalFailure)) throw error;
      // A refusal asking again cannot change (a bad key, a prompt over the window) is the loop's to handle as it is.
      if (error instanceof ApplicationFailure && NON_RETRYABLE_MODEL_ERRORS.includes(error.type ?? '')) throw error;
      // It failed, or it ran out its slice of the task (a model slower than this worker had seen): the call is made
      // again as the activity it would otherwise have been, under the run's retry policy.
      countAbandonedModelCall(state.cost);
      return remotely();
    }
  }
  return terms.modelCalls === 'local' ? locally(callModelLocally) : remotely();
}

/**
 * One model call; `tools` empty means the model must answer now (no tools, no question, no delegation). `maxTokens`
 * caps the reply when the run has a token budget; `kind` is what the cost ledger files it under. The config's model settings go with every call, the forced final
 * answer's too; only the activity's input changes with them, never what the workflow does.
 */
export async function think(
  state: RunState,
  messages: ChatMessage[],
  tools: string[],
  summary: string,
  maxTokens?: number,
  kind: 'think' | 'final_answer' = 'think',
): Promise<ModelReply> {
  const { config } = state;
  const offering = tools.length > 0;
  const allowClarification = config.approvals.clarification && offering;
  const subagents = offering
    ? Object.fromEntries(Object.entries(config.subagents).map(([name, sub]) => [name, sub.description]))
    : {};
  const cap = completionCap(config.modelSettings.maxTokens, maxTokens);
  const settings = modelSettingsOf(config.modelSettings);
  const runAhead = offering ? runAheadRequest(state, tools) : undefined;
  const { recorded: reply, local } = await placeCall(state, messages, summary, {
    model: config.model,
    mode: config.modelSettings.toolCalling,
    tools,
    tags: tagsOf(config),
    label: summary,
    allowClarification,
    subagents,
    outputSchema: outputSchemaOf(config),
    ...(cap !== undefined ? { maxTokens: cap } : {}),
    ...(settings ? { settings } : {}),
    ...(config.modelSettings.stream ? { stream: { iteration: state.counters.iterations } } : {}),
    ...(runAhead ? { runAhead } : {}),
  });
  keepRanAhead(state, reply);
  recordUsage(state, reply.usage);
  recordModelCall(state.cost, state.terms.pricing, {
    kind,
    iteration: state.counters.iterations,
    usage: reply.usage,
    ...(reply.attempts !== undefined ? { attempts: reply.attempts } : {}),
    local,
  });
  // Learnt from every reply, budget or not: the context-window check estimates prompts with it.
  learnPromptRatio(state, messages, reply.usage.promptTokens);
  return reply;
}
