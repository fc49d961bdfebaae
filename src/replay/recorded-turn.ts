import type { CritiqueOutput } from '../shared/critic';
import { ErrorType } from '../shared/errors';
import { CHARS_PER_TOKEN } from '../shared/observation';
import type { ModelReply } from '../shared/protocol';
import type { SummarizeOutput } from '../shared/summaries';
import type { TokenUsage } from '../shared/cost';
import type { ScriptedTurn } from '../testing/scripted-turn';
import type { ModelCallFailure, RecordedToolCall } from './recording-types';
import { parseVerdict } from '../worker/activities/critic';

/*
 * The completion the scripted model must send for the current worker code to return a recorded activity output
 * again. Usage is always sent as recorded, so the worker's counts do not depend on the prompt's size. Where the
 * output does not hold everything the completion had, the reconstruction is as close as the worker allows; each
 * such place says what differs.
 */

/**
 * How long a turn that must never arrive waits: longer than a model call's 90 s start-to-close timeout. The scripted
 * server drops the timer when the client gives up, so the wait costs nothing once the run has moved on.
 */
export const NEVER_ANSWERS_MS = 10 * 60_000;

/** A turn for a call the recording never saw answered (the run stopped or the call timed out while it waited). */
export const NEVER_ANSWERS: ScriptedTurn = Object.freeze({ delayMs: NEVER_ANSWERS_MS });

const usageOf = (usage: TokenUsage | undefined): Pick<ScriptedTurn, 'usage'> =>
  usage && typeof usage.totalTokens === 'number' ? { usage: { ...usage } } : {};

/** `oversized()` in llm.ts keeps a preview of the text and says how many characters the reply had in all. */
const OVERSIZED_PROBLEM = /^Your reply was (\d+) characters; replies over \d+ characters are not read\./;
const OVERSIZED_PREVIEW = /^([\s\S]*)… \[\d+ more characters not kept\]$/;
const PREVIEW_CHARS = 2000;
const CUT_OFF_PROBLEM = 'Your reply was cut off at the token limit';

/**
 * An oversized reply: the worker kept the text's first 2,000 characters and the reply's size. Sending those, padded
 * (as text, or as a tool call's arguments when the text was shorter) to the same size, gives the same preview and
 * problem; only the padding differs from what the model sent, and the worker keeps none of it.
 */
function oversizedTurn(reply: ModelReply, size: number): ScriptedTurn | null {
  const kept = OVERSIZED_PREVIEW.exec(reply.assistantMessage.content)?.[1];
  if (kept === undefined || size <= kept.length) return null;
  if (kept.length >= PREVIEW_CHARS) return { content: kept.padEnd(size, 'x'), ...usageOf(reply.usage) };
  const padding = { id: 'oversized', name: 'x', rawArguments: 'x'.repeat(size - kept.length - 1) };
  return { content: kept, toolCalls: [padding], ...usageOf(reply.usage) };
}

/**
 * A reply cut off at the token limit. The scripted server reports `finish_reason: length` only when it cuts a reply
 * itself, which it does to `max_tokens` × 4 characters when no completion count is scripted: the text is padded with
 * spaces past that. Approximate: the kept text ends in those spaces where the recorded one was shorter (the thought
 * and the problem are the same), the completion tokens are the server's count, and a request without `max_tokens`
 * is not cut at all (`limit` is the recorded call's cap, or its completion tokens when the history holds no input).
 */
function cutOffTurn(reply: ModelReply, limit: number): ScriptedTurn {
  const content = reply.assistantMessage.content;
  const past = Math.max(content.length + 1, limit * CHARS_PER_TOKEN + 1);
  return { content: content.padEnd(past, ' '), usage: { promptTokens: reply.usage.promptTokens } };
}

/**
 * The completion behind a `callModel` reply. The reply keeps the assistant message as received (text, tool calls
 * with their ids, names and argument text), so tool calls, answers, questions and malformed replies are sent back
 * exactly. Text mode is the exception: its one call's id is `<completion id>-0`, and the scripted server names
 * completions after its model and request count, so the id differs (the workflow renames every call `c<step>-<n>`,
 * so nothing downstream sees it).
 */
export function callModelTurn(reply: ModelReply, maxTokens?: number): ScriptedTurn {
  if (reply.type === 'malformed') {
    const size = OVERSIZED_PROBLEM.exec(reply.problem)?.[1];
    const oversized = size === undefined ? null : oversizedTurn(reply, Number(size));
    if (oversized) return oversized;
    if (reply.problem.startsWith(CUT_OFF_PROBLEM)) return cutOffTurn(reply, maxTokens ?? reply.usage.completionTokens);
  }
  const message = reply.assistantMessage;
  const toolCalls = (message.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    rawArguments: call.argumentsText,
  }));
  return { content: message.content, ...(toolCalls.length > 0 ? { toolCalls } : {}), ...usageOf(reply.usage) };
}

/** The completion behind a summary: the worker trims the text and keeps the rest, so it is exact. */
export function summarizeTurn(output: SummarizeOutput): ScriptedTurn {
  return { content: output.summary, ...usageOf(output.usage) };
}

/** Texts the critic may have sent for a verdict the worker could not read, tried in order. */
function malformedCandidates(problem: string): string[] {
  // V8 quotes short JSON it cannot parse: `Unexpected token 'x', "{x}" is not valid JSON`.
  const quoted = /, "([\s\S]*)" is not valid JSON\)$/.exec(problem)?.[1];
  return [...(quoted ? [quoted] : []), 'no verdict', '{x}', '{}'];
}

/**
 * The completion behind a critic's verdict. A readable verdict is sent as its JSON (the worker keeps every field).
 * An unreadable one keeps only why it was refused, so texts are tried until the worker's own parser gives the same
 * reason; when none does (e.g. a verdict with a value out of range), the last one is refused the same way for
 * another reason: approximate in the reason's wording only.
 */
export function critiqueTurn(output: CritiqueOutput): ScriptedTurn {
  if ('verdict' in output) return { content: JSON.stringify(output.verdict), ...usageOf(output.usage) };
  const candidates = malformedCandidates(output.malformed);
  const same = candidates.find((text) => {
    const parsed = parseVerdict(text);
    return 'malformed' in parsed && parsed.malformed === output.malformed;
  });
  return { content: same ?? candidates[candidates.length - 1]!, ...usageOf(output.usage) };
}

/** The HTTP status a classified model failure came from (see model-errors.ts). */
function statusOf(failure: ModelCallFailure): number {
  const status = /\(HTTP (\d{3})\)/.exec(failure.message)?.[1];
  if (status) return Number(status);
  switch (failure.type) {
    case ErrorType.ModelAuthentication:
      return 401;
    case ErrorType.ModelNotFound:
      return 404;
    case ErrorType.ModelBadRequest:
      return 400;
    case ErrorType.ModelRateLimited:
      return 429;
    default:
      return 503;
  }
}

/** What model-errors.ts adds after the endpoint's own message, by status. */
const ADVICE = /\. (Set OPENAI_API_KEY to a key valid for this endpoint|Check OPENAI_MODEL and OPENAI_BASE_URL)\.$/;

/**
 * The error response behind a failed model call: the status it was classified from, with the endpoint's message.
 * The worker's message names the endpoint's URL, so a replay's failure reads the same but for that address. A
 * failure without an HTTP status (a connection error, a timeout inside the attempt) is answered with 503, which the
 * worker classifies the same way (retryable, `ModelUnavailableError`) with other words. A failure the recording
 * retried was answered this way on every attempt (see `RecordedModelCall.attempts`).
 */
export function failureTurn(failure: ModelCallFailure): ScriptedTurn {
  const detail = /\(HTTP \d{3}\)(?: is unavailable)?: ([\s\S]*)$/.exec(failure.message)?.[1]?.replace(ADVICE, '');
  return { status: statusOf(failure), errorMessage: detail ?? failure.message };
}

/** The calls of a reply a read-only tool answered inside the model call (see `readOnly` in defineTool). */
export function ranAheadCalls(reply: ModelReply): RecordedToolCall[] {
  if (reply.type !== 'tool_calls') return [];
  return (reply.ranAhead ?? []).map(({ tool, callId, argsJson, observation }) => ({
    tool,
    args: JSON.parse(argsJson) as unknown,
    callId,
    local: true,
    observation,
    ranAhead: true,
  }));
}
