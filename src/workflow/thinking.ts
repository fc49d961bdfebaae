import { modelSettingsOf } from '../shared/model-settings';
import {
  promptDelta,
  tagsOf,
  toModelReply,
  type ChatMessage,
  type ModelReply,
  type PromptDelta,
} from '../shared/protocol';
import { outputSchemaOf } from '../shared/output';
import { modelActivities } from './activity-proxies';
import { buildMessages } from './prompt';
import { recordUsage, type RunState } from './run-state';
import { rememberSent, takeOpensLocally } from './prompt-state';
import { keepRanAhead, runAheadRequest } from './run-ahead';
import { promptSteps } from '../shared/step-archive';
import { completionCap, learnPromptRatio } from './token-budget';
import { countedActivity, recordModelCall } from './cost-ledger';

/** The next prompt: the running summary and the window of steps it does not cover yet, plus notes and feedback. */
export function promptFor(state: RunState, feedback: readonly string[]): ChatMessage[] {
  const { query, config } = state;
  const { summary, window: steps } = state.transcript;
  const { notes } = state.prompt;
  const earlierTurns = state.conversation?.history;
  return buildMessages({ query, config, summary, steps: promptSteps(steps), feedback, notes, earlierTurns });
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

/**
 * One model call; `tools` empty means the model must answer now (no tools, no question, no delegation). `maxTokens`
 * caps the reply when the run has a token budget. The config's model settings go with every call, the forced final
 * answer's too; only the activity's input changes with them, never what the workflow does.
 */
export async function think(
  state: RunState,
  messages: ChatMessage[],
  tools: string[],
  summary: string,
  maxTokens?: number,
): Promise<ModelReply> {
  const { config } = state;
  const offering = tools.length > 0;
  const allowClarification = config.allowClarification && offering;
  const subagents = offering
    ? Object.fromEntries(Object.entries(config.subagents).map(([name, sub]) => [name, sub.description]))
    : {};
  // A new run's first call may open locally (prepareRun judged this worker's model quick): a local activity in the
  // start's workflow task is billed with the config check's, as one action. Recorded with prepareRun's result.
  const local = takeOpensLocally(state.prompt) || config.modelCalls === 'local';
  const { callModel, callModelLocally } = modelActivities(config.modelCallPolicy);
  const call = local ? callModelLocally : callModel;
  const cap = completionCap(config.maxTokens, maxTokens);
  const settings = modelSettingsOf(config);
  const runAhead = offering ? runAheadRequest(state, tools) : undefined;
  // A local call's input is not recorded: its events stay for the next remote call (or the followers' query).
  const events = local ? undefined : state.events.unpublished();
  const recorded = await countedActivity(state.cost, local, () =>
    call.executeWithOptions({ summary }, [
      {
        // A local call's input is not recorded, so only a remote one needs the delta.
        ...(local ? { messages } : { prompt: nextPrompt(state, messages) }),
        model: config.model,
        mode: config.toolCalling,
        tools,
        tags: tagsOf(config),
        label: summary,
        allowClarification,
        subagents,
        outputSchema: outputSchemaOf(config),
        ...(cap !== undefined ? { maxTokens: cap } : {}),
        ...(settings ? { settings } : {}),
        ...(config.stream ? { stream: { iteration: state.counters.iterations } } : {}),
        ...(runAhead ? { runAhead } : {}),
        ...(events ? { events } : {}),
      },
    ]),
  );
  // Histories recorded before the reply became a tagged union hold the old shape: read both.
  const reply = toModelReply(recorded);
  keepRanAhead(state, reply);
  recordUsage(state, reply.usage);
  recordModelCall(state.cost, config, {
    kind: 'think',
    iteration: state.counters.iterations,
    usage: reply.usage,
    ...(reply.attempts !== undefined ? { attempts: reply.attempts } : {}),
    local,
  });
  // Under a budget, as before (the ratio steers the budget's decisions, which `maxTokens` alone must not touch), and
  // from rule set 5 on always: the context-window check estimates prompts with it.
  if (maxTokens !== undefined || state.rules.alwaysLearnsPromptRatio)
    learnPromptRatio(state, messages, reply.usage.promptTokens);
  return reply;
}
