import { Context } from '@temporalio/activity';
import { parseDuration } from '../../shared/duration';
import { successObservation } from '../../shared/observation';
import type { ModelReply, ParsedToolCall } from '../../shared/protocol';
import type { RanAhead, RunAheadRequest } from '../../shared/tool-protocol';
import type { ToolRegistry } from '../tools/registry';
import { withHeartbeats } from './heartbeat';
import { DEFAULT_TOOL_TIMEOUT } from './tools';

/**
 * Longest a tool may run ahead, whatever its own timeout: the model call's activity holds it. A tool still running
 * then is left to its own activity.
 */
export const RUN_AHEAD_MAX_MS = 10_000;
/** Time kept free at the end of the model call's attempt, so running ahead never makes it time out. */
const ATTEMPT_MARGIN_MS = 5_000;
/**
 * Most JSON characters of results one reply carries ahead: they are recorded with the model call's result, which
 * Temporal caps at 2 MB. Calls beyond it run as their own activities.
 */
export const RUN_AHEAD_MAX_CHARS = 256 * 1024;

/**
 * How long tools may run ahead in this attempt: at most {@link RUN_AHEAD_MAX_MS}, and never past its end. Counted from
 * when the attempt was scheduled, which is no later than it started: the budget errs short.
 */
export function runAheadBudgetMs(
  attempt: { startToCloseTimeoutMs: number; scheduledAtMs: number },
  now: number,
): number {
  const left = attempt.startToCloseTimeoutMs - (now - attempt.scheduledAtMs) - ATTEMPT_MARGIN_MS;
  return Math.min(RUN_AHEAD_MAX_MS, left);
}

/**
 * Runs one call of the reply ahead. Undefined when it may not (the worker's own definition must say read-only too:
 * the request only repeats what the catalog said) or did not succeed, whatever went wrong (a throwing schema too):
 * the workflow then runs the call as the tool's own activity, which gives the model the tool's error in its usual
 * words, after the tool's own retries. Nothing here may fail the model call.
 */
async function runOne(
  registry: ToolRegistry,
  request: RunAheadRequest,
  call: ParsedToolCall,
  index: number,
  limit: { budgetMs: number; cancelled: AbortSignal },
): Promise<RanAhead | undefined> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const stopped = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(new Error('aborted'))),
  );
  stopped.catch(() => undefined); // raced below; an abort after the race is nobody's error
  limit.cancelled.addEventListener('abort', abort);
  let timer: NodeJS.Timeout | undefined;
  try {
    const tool = registry.get(call.tool);
    if (!tool?.readOnly || !request.tools.includes(call.tool) || call.parseError !== undefined) return undefined;
    const parsed = tool.schema.safeParse(call.args);
    if (!parsed.success || limit.cancelled.aborted) return undefined;
    const callId = `c${request.iteration}-${index + 1}`;
    const ownTimeoutMs = parseDuration(tool.timeout ?? DEFAULT_TOOL_TIMEOUT) ?? RUN_AHEAD_MAX_MS;
    timer = setTimeout(abort, Math.min(ownTimeoutMs, limit.budgetMs));
    const context = { idempotencyKey: `${request.keyPrefix}:${callId}`, signal: controller.signal };
    const output = await Promise.race([tool.handler(parsed.data, context), stopped]);
    const observation = successObservation(output, request.maxObservationTokens, request.fullTextOver);
    return { callId, tool: call.tool, argsJson: JSON.stringify(call.args ?? null), observation };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    limit.cancelled.removeEventListener('abort', abort);
  }
}

/**
 * The reply with the calls read-only tools answered at once (see `readOnly` in defineTool): recorded with the reply,
 * they spare the step the tool's own activity. Nothing runs for a reply the workflow will refuse whole, or when the
 * attempt has too little time left.
 */
export async function runAhead(
  registry: ToolRegistry,
  reply: ModelReply,
  request: RunAheadRequest,
  limit: { budgetMs: number; cancelled: AbortSignal },
): Promise<ModelReply> {
  if (reply.type !== 'tool_calls' || reply.calls.length > request.maxCalls || limit.budgetMs <= 0) return reply;
  const ran = await Promise.all(reply.calls.map((call, index) => runOne(registry, request, call, index, limit)));
  let chars = 0;
  const ranAhead = ran.filter((entry): entry is RanAhead => {
    if (entry === undefined) return false;
    chars += JSON.stringify(entry).length;
    return chars <= RUN_AHEAD_MAX_CHARS;
  });
  return ranAhead.length > 0 ? { ...reply, ranAhead } : reply;
}

/** {@link runAhead} inside the model call's activity: within what its attempt has left, heartbeating meanwhile. */
export function runAheadInActivity(
  registry: ToolRegistry,
  reply: ModelReply,
  request: RunAheadRequest,
): Promise<ModelReply> {
  const { info } = Context.current();
  const attempt = {
    startToCloseTimeoutMs: info.startToCloseTimeoutMs,
    scheduledAtMs: info.currentAttemptScheduledTimestampMs,
  };
  const budgetMs = runAheadBudgetMs(attempt, Date.now());
  // Heartbeats on: a run cancelled while its tools run ahead reaches them through the signal.
  return withHeartbeats((cancelled) => runAhead(registry, reply, request, { budgetMs, cancelled }));
}
