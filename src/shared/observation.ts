import type { ToolObservation } from './tool-protocol';
import { headOf } from './well-formed';

/**
 * Token estimate used for truncation and budget projection: about four characters per token, the usual figure for
 * English with OpenAI-style BPE tokenizers. Real usage always comes from the model's own reports.
 */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Marks error observations so the model (and a reader of the scratchpad) cannot mistake them for results. */
export const ERROR_PREFIX = '[error]';

/** Cuts text to about `maxTokens` tokens, keeping the head and saying how much was dropped. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  const maxChars = maxTokens * CHARS_PER_TOKEN;
  return { text: truncateToChars(text, maxChars), truncated: text.length > maxChars };
}

/** Renders a call as `tool({"a":1})` for messages and summaries, shortened so huge arguments stay readable. */
export function describeCall(tool: string, args: unknown, maxChars = 200): string {
  let rendered: string;
  try {
    rendered = typeof args === 'string' ? args : (JSON.stringify(args) ?? 'undefined');
  } catch {
    rendered = String(args);
  }
  if (rendered.length > maxChars) rendered = `${rendered.slice(0, maxChars)}…`;
  return `${tool}(${rendered})`;
}

/** Longest error message an error observation keeps. */
export const MAX_ERROR_CHARS = 2000;

/** An error observation with context (tool, arguments, message) that the model can act on. */
export function errorObservation(
  tool: string,
  args: unknown,
  message: string,
  errorKind: NonNullable<ToolObservation['errorKind']> = 'tool_error',
): ToolObservation {
  // A tool may throw with a message of any size; the model and the history get a bounded one.
  const clipped =
    message.length > MAX_ERROR_CHARS
      ? `${message.slice(0, MAX_ERROR_CHARS)}… [${message.length - MAX_ERROR_CHARS} more characters]`
      : message;
  return {
    text: `${ERROR_PREFIX} ${describeCall(tool, args)}: ${clipped}`,
    isError: true,
    errorKind,
    truncated: false,
  };
}

/**
 * Turns a tool's output into an observation: strings as they are, JSON compact (fewer tokens) and kept as data. The
 * data is kept only when it fits the same bound as the text: every step is stored in history and in the result, and
 * a few large JSON results used to push a run past Temporal's payload limit and lose its final answer.
 */
export function successObservation(output: unknown, maxTokens: number, fullTextOver?: number): ToolObservation {
  const isText = typeof output === 'string';
  const rendered = isText ? output : (JSON.stringify(output) ?? 'null');
  const { text, truncated } = truncateToTokens(rendered, maxTokens);
  const rawTokens = estimateTokens(rendered);
  // The whole result travels only to be summarised, bounded so the activity's result stays far below Temporal's 2 MB.
  const full =
    truncated && fullTextOver !== undefined && rawTokens > fullTextOver
      ? { fullText: truncateToChars(rendered, FULL_TEXT_MAX_CHARS) }
      : {};
  return isText || truncated
    ? { text, isError: false, truncated, rawTokens, ...full }
    : { text, isError: false, data: output, truncated, rawTokens, ...full };
}

/**
 * Most characters of a result handed to the summariser (about 100,000 tokens): a result that size costs the run's
 * history twice (the tool's result and the summary's input), so larger ones are summarised from their first part.
 */
export const FULL_TEXT_MAX_CHARS = 400_000;

/** Cuts text to `maxChars`, keeping the head (never cut inside a surrogate pair) and saying how much was dropped. */
function truncateToChars(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${headOf(text, maxChars)}\n… [truncated: ${text.length - maxChars} more characters]`;
}
