import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../shared/context-windows';
import { ErrorType } from '../shared/errors';
import { eventText } from '../shared/events';
import { describeCall } from '../shared/observation';
import { renderScratchpad, type ChatMessage } from '../shared/protocol';
import { summaryMessages, type SummarizeInput } from '../shared/summaries';
import type { ReActStep } from '../shared/types';
import { summarize } from './activity-proxies';
import { recordError, recordUsage, type RunState } from './run-state';
import { promptSteps } from './step-archive';
import { estimatePromptTokens, loopCallAllowance, withCap } from './token-budget';

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

/** The run's context window: the provider's stated size once it refused a prompt, else the config's, else a guess. */
export function contextWindowOf(state: RunState): ContextWindow {
  const { config, learnedContextWindow } = state;
  const assumed = config.contextWindow ?? knownContextWindow(config.model) ?? DEFAULT_CONTEXT_WINDOW;
  const tokens = Math.min(learnedContextWindow ?? assumed, assumed);
  return { tokens, known: learnedContextWindow !== undefined || config.contextWindow !== undefined };
}

/** Tokens kept free in the window for the reply: the config's `maxTokens`, else an eighth of the window (≤ 4096). */
function replyReserve(state: RunState, window: number): number {
  return state.config.maxTokens ?? Math.min(MAX_REPLY_RESERVE, Math.floor(window / 8));
}

/** Estimated tokens by which a request (and the room for its reply) overflows the window; 0 when it fits. */
export function overflowOf(state: RunState, request: unknown): number {
  const window = contextWindowOf(state);
  return Math.max(0, estimatePromptTokens(state, request) + replyReserve(state, window.tokens) - window.tokens);
}

/** One line per step for a summary written without the model: what was called and the start of what came back. */
function stepLine(step: ReActStep): string {
  const { action } = step;
  const clip = (text: string) => (text.length > STEP_LINE_CHARS ? `${text.slice(0, STEP_LINE_CHARS)}…` : text);
  const what =
    action.type === 'tool_call'
      ? clip(describeCall(action.tool, action.args))
      : action.type === 'final_answer'
        ? `answered: ${clip(action.answer)}`
        : action.type === 'clarification'
          ? `asked: ${clip(action.question)}`
          : `delegated to ${action.agent}: ${clip(action.task)}`;
  const observation = step.observation === null ? '' : ` → ${clip(step.observation.replace(/\s+/g, ' '))}`;
  return `- step ${step.iteration}: ${what}${observation}`;
}

/**
 * Summarises steps for compaction: by the model when the request fits the window and the budget, else (or when that
 * call fails) as one line per step, so compaction itself can never fail the run.
 */
async function summarizeSteps(state: RunState, steps: readonly ReActStep[]): Promise<string> {
  const input: SummarizeInput = {
    kind: 'conversation',
    query: state.query,
    previousSummary: state.summary,
    steps: renderScratchpad(promptSteps(steps), state.config),
    model: state.config.model,
  };
  const request = summaryMessages(input);
  const allowed = loopCallAllowance(state, request);
  if (!('refused' in allowed) && overflowOf(state, request) === 0) {
    try {
      const output = await summarize.executeWithOptions({ summary: 'compact · summarise earlier steps' }, [
        withCap(input, allowed.maxTokens),
      ]);
      recordUsage(state, output.usage);
      if (output.summary.trim() !== '') return output.summary;
    } catch (error) {
      if (isCancellation(error)) throw error;
      recordError(state, 'model_error', `compaction's summary failed, steps listed instead: ${failureText(error)}`);
    }
  }
  const earlier = state.summary ? `${state.summary}\n\nThen:\n` : '';
  return `${earlier}${steps.map(stepLine).join('\n')}`;
}

/**
 * Folds all but the newest iterations the prompt shows into the running summary ("Conversation so far"); the trace
 * keeps every step. Returns false when there is nothing left to fold.
 */
export async function compact(state: RunState): Promise<boolean> {
  const iterations = [...new Set(state.window.map((step) => step.iteration))];
  if (iterations.length === 0) return false;
  // With a single iteration left even that one is folded: a summary of it beats a refused prompt.
  const keep = Math.min(KEEP_NEWEST_ITERATIONS, iterations.length - 1);
  const firstKept = keep === 0 ? Infinity : (iterations[iterations.length - keep] ?? Infinity);
  const older = state.window.filter((step) => step.iteration < firstKept);
  const summary = await summarizeSteps(state, older);
  state.summary = summary;
  state.window = state.window.filter((step) => step.iteration >= firstKept);
  state.events.emit({ type: 'summary', text: eventText(summary) });
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
  let messages = first;
  while (overflowOf(state, messages) > 0 && (await compact(state))) messages = build();
  const over = overflowOf(state, messages);
  const window = contextWindowOf(state);
  if (over === 0 || !window.known) return { messages };
  return {
    refused:
      `the next prompt (~${estimatePromptTokens(state, messages)} tokens, with room for the reply) does not fit the ` +
      `model's context window of ${window.tokens} tokens, even with the earlier steps summarised`,
  };
}

/** The provider's refusal of a prompt over its context window, if `error` is one. */
export function contextLengthFailure(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  return cause instanceof ApplicationFailure && cause.type === ErrorType.ModelContextLengthExceeded ? cause : undefined;
}

/**
 * Learns from a provider's context-length refusal: the window it stated, or else one a little under the refused
 * prompt's estimate, so the next check compacts before calling again.
 */
export function learnContextWindow(state: RunState, failure: ApplicationFailure, messages: ChatMessage[]): void {
  const stated = (failure.details?.[0] as { contextWindow?: unknown } | undefined)?.contextWindow;
  const learned =
    typeof stated === 'number' && stated > 0 ? stated : Math.floor(estimatePromptTokens(state, messages) * 0.9);
  state.learnedContextWindow = Math.min(state.learnedContextWindow ?? learned, learned);
}

function failureText(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
