import { isCancellation, type ApplicationFailure } from '@temporalio/workflow';
import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../../shared/context-windows';
import { ErrorType } from '../../shared/errors';
import { eventText } from '../../shared/events';
import { CHARS_PER_TOKEN, describeCall } from '../../shared/observation';
import { renderScratchpad, type ChatMessage } from '../../shared/protocol';
import { summaryMessages, type SummarizeInput } from '../../shared/summaries';
import type { ReActStep } from '../../shared/types';
import { activityFailureMessage, modelActivities, modelFailure } from '../activity-proxies';
import { recordError, recordHelperCall, type RunState } from '../record/run-state';
import { learnContextWindow } from '../record/prompt-state';
import { foldWindow } from '../record/transcript';
import { promptSteps } from '../../shared/step-archive';
import { estimatePromptTokens, loopCallAllowance, withCap } from '../limits/token-budget';
import { clip } from '../../shared/well-formed';

/*
 * The context window. Whether a run compacts (and so schedules a summary) depends on the estimate of the rendered
 * prompt: a change to prompt wording or to the estimate can change the commands of a recorded run near its window.
 * Such a change needs a new rule-set generation (rule-sets.ts); test/histories/real-models.json is recorded near its window so that
 * replay catches one that lacks it. The window assumed for a model is decided by the worker and recorded with the
 * run (prepareRun), so the table of known windows can change freely.
 */

/** Newest iterations compaction leaves in the prompt step by step: the model must still see what it just did. */
export const KEEP_NEWEST_ITERATIONS = 2;
/** Most tokens kept free for the reply when the config sets no `maxTokens` (an eighth of smaller windows). */
export const MAX_REPLY_RESERVE = 4096;
/** Characters of a call's arguments and of its observation a summary written without the model keeps per step. */
const STEP_LINE_CHARS = 200;

/** The window a run's prompts must fit, and whether it is known (configured or stated by the provider) or assumed. */
export interface ContextWindow {
  tokens: number;
  known: boolean;
}

/**
 * The run's context window: the provider's stated size once it refused a prompt (when smaller than the config's), the
 * config's, or else an assumption from the model's name. Only a known window can stop a run.
 */
export function contextWindowOf(state: RunState): ContextWindow {
  const { config } = state;
  const { learnedContextWindow } = state.prompt;
  const assumed =
    config.modelSettings.contextWindow ??
    state.prompt.assumedContextWindow ??
    knownContextWindow(config.model) ??
    DEFAULT_CONTEXT_WINDOW;
  if (learnedContextWindow !== undefined && learnedContextWindow < assumed) {
    return { tokens: learnedContextWindow, known: true };
  }
  return { tokens: assumed, known: config.modelSettings.contextWindow !== undefined };
}

/** Tokens kept free in the window for the reply: the config's `maxTokens`, else an eighth of the window (≤ 4096). */
function replyReserve(state: RunState, window: number): number {
  return state.config.modelSettings.maxTokens ?? Math.min(MAX_REPLY_RESERVE, Math.floor(window / 8));
}

/** Estimated tokens by which a request (and the room for its reply) overflows the window; 0 when it fits. */
export function overflowOf(state: RunState, request: unknown): number {
  const window = contextWindowOf(state);
  return Math.max(0, estimatePromptTokens(state, request) + replyReserve(state, window.tokens) - window.tokens);
}

/** One line per step for a summary written without the model: what was called and the start of what came back. */
function stepLine(step: ReActStep): string {
  const { action } = step;
  const what =
    action.type === 'tool_call'
      ? clip(describeCall(action.tool, action.args), STEP_LINE_CHARS)
      : action.type === 'final_answer'
        ? `answered: ${clip(action.answer, STEP_LINE_CHARS)}`
        : action.type === 'clarification'
          ? `asked: ${clip(action.question, STEP_LINE_CHARS)}`
          : `delegated to ${action.agent}: ${clip(action.task, STEP_LINE_CHARS)}`;
  const observation =
    step.observation === null ? '' : ` → ${clip(step.observation.replace(/\s+/g, ' '), STEP_LINE_CHARS)}`;
  return `- step ${step.iteration}: ${what}${observation}`;
}

/**
 * A summary written without the model: the previous summary and one line per step, kept to a quarter of the window
 * (its newest lines), so that repeated compactions cannot grow it past what a prompt can carry.
 */
function listedSummary(state: RunState, steps: readonly ReActStep[]): string {
  const earlier = state.transcript.summary ? `${state.transcript.summary}\n\nThen:\n` : '';
  const text = `${earlier}${steps.map(stepLine).join('\n')}`;
  const limit = Math.floor((contextWindowOf(state).tokens * CHARS_PER_TOKEN) / 4);
  if (text.length <= limit) return text;
  const kept = text.slice(-limit);
  return `[earlier steps not kept]\n${kept.slice(kept.indexOf('\n') + 1)}`;
}

/** A summary of steps, and why the model did not write it when it is only a list of them. */
export interface StepsSummary {
  text: string;
  /** Why the steps are listed instead of summarised by the model (budget, window, a failed or empty reply). */
  listedBecause?: string;
}

/**
 * Summarises steps into the running summary: by the model when the request fits the window and the budget, else (or
 * when that call fails, or answers nothing) as one line per step, so folding steps can never fail the run.
 */
async function summarizeSteps(state: RunState, steps: readonly ReActStep[], label: string): Promise<StepsSummary> {
  const input: SummarizeInput = {
    kind: 'conversation',
    query: state.query,
    previousSummary: state.transcript.summary,
    steps: renderScratchpad(promptSteps(steps), state.config),
    model: state.config.model,
  };
  const request = summaryMessages(input);
  const allowed = loopCallAllowance(state, request);
  if ('refused' in allowed) return { text: listedSummary(state, steps), listedBecause: 'the token budget refused it' };
  if (overflowOf(state, request) > 0) {
    return { text: listedSummary(state, steps), listedBecause: "it would not fit the model's context window" };
  }
  let listedBecause = 'the model answered with no text';
  try {
    const { summarize } = modelActivities(state.terms.modelCallPolicy);
    const output = await summarize.executeWithOptions({ summary: label }, [withCap(input, allowed.maxTokens)]);
    recordHelperCall(state, 'summarize', output.usage);
    if (output.summary.trim() !== '') return { text: output.summary };
  } catch (error) {
    if (isCancellation(error)) throw error;
    listedBecause = `the summary failed: ${activityFailureMessage(error)}`;
    recordError(state, 'model_error', `the summary failed, steps listed instead: ${activityFailureMessage(error)}`);
  }
  return { text: listedSummary(state, steps), listedBecause };
}

/** Folds `older` into the running summary ("Conversation so far") and leaves `newer` as the window the model sees. */
export async function foldSteps(
  state: RunState,
  older: readonly ReActStep[],
  newer: ReActStep[],
  label: string,
): Promise<StepsSummary> {
  const summary = await summarizeSteps(state, older, label);
  foldWindow(state.transcript, summary.text, newer);
  state.events.emit({ type: 'summary', text: eventText(summary.text) });
  return summary;
}

/**
 * Folds all but the newest iterations the prompt shows into the running summary; the trace keeps every step. With a
 * known window even the newest iteration may go (a summary of it beats a refused prompt); an assumed one always
 * keeps it. Returns false when there is nothing left to fold.
 */
export async function compact(state: RunState): Promise<boolean> {
  const iterations = [...new Set(state.transcript.window.map((step) => step.iteration))];
  const least = contextWindowOf(state).known ? 0 : 1;
  const keep = Math.min(KEEP_NEWEST_ITERATIONS, iterations.length - 1);
  if (iterations.length === 0 || keep < least) return false;
  const firstKept = keep === 0 ? Infinity : (iterations[iterations.length - keep] ?? Infinity);
  const older = state.transcript.window.filter((step) => step.iteration < firstKept);
  await foldSteps(
    state,
    older,
    state.transcript.window.filter((step) => step.iteration >= firstKept),
    'compact · summarise earlier steps',
  );
  return true;
}

/**
 * The next prompt, compacted until it fits the context window. When it cannot fit a known window, the reason to stop
 * (`token_budget`); an assumed window is only a guess, so then the prompt goes as it is and the provider decides.
 */
export async function fitContext(
  state: RunState,
  first: ChatMessage[],
  build: () => ChatMessage[],
): Promise<{ messages: ChatMessage[] } | { refused: string }> {
  const window = contextWindowOf(state);
  const reserve = replyReserve(state, window.tokens);
  if (reserve >= window.tokens) {
    // No compaction can help: the reply alone takes the window.
    if (!window.known) return { messages: first };
    return {
      refused: `maxTokens (${reserve}) leaves no room for a prompt in the model's context window of ${window.tokens} tokens`,
    };
  }
  let messages = first;
  let over = overflowOf(state, messages);
  while (over > 0 && (await compact(state))) {
    messages = build();
    over = overflowOf(state, messages);
  }
  const now = contextWindowOf(state);
  if (over === 0 || !now.known) return { messages };
  return {
    refused:
      `the next prompt (~${estimatePromptTokens(state, messages)} tokens, with room for the reply) does not fit the ` +
      `model's context window of ${now.tokens} tokens, even with the earlier steps summarised`,
  };
}

/** The provider's refusal of a prompt over its context window, if `error` is one. */
export function contextLengthFailure(error: unknown): ApplicationFailure | undefined {
  const cause = modelFailure(error);
  return cause?.type === ErrorType.ModelContextLengthExceeded ? cause : undefined;
}

/**
 * After a provider refused a prompt for its length: records it, learns the window it stated (or else one a little
 * under the refused prompt's estimate, so the next check compacts before calling again) and compacts. Returns
 * whether anything was folded, i.e. whether calling again can help.
 */
export async function recoverFromRefusal(
  state: RunState,
  refusal: ApplicationFailure,
  messages: ChatMessage[],
): Promise<boolean> {
  recordError(state, 'model_error', refusal.message);
  const stated = (refusal.details?.[0] as { contextWindow?: unknown } | undefined)?.contextWindow;
  const learned =
    typeof stated === 'number' && stated > 0 ? stated : Math.floor(estimatePromptTokens(state, messages) * 0.9);
  learnContextWindow(state.prompt, learned);
  return compact(state);
}
