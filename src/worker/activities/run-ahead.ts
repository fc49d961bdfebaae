import { parseDuration } from '../../shared/duration';
import { successObservation } from '../../shared/observation';
import type { ModelReply, ParsedToolCall } from '../../shared/protocol';
import type { RanAhead, RunAheadRequest } from '../../shared/tool-protocol';
import type { ToolRegistry } from '../tools/registry';
import { DEFAULT_TOOL_TIMEOUT } from './tools';

/**
 * Longest a tool may run ahead, whatever its own timeout: the model call's activity holds it, and its 90 s must still
 * cover a slow model. A tool still running then is left to its own activity.
 */
export const RUN_AHEAD_MAX_MS = 10_000;

/**
 * Runs one call of the reply ahead. Undefined when it may not (the worker's own definition must say read-only too:
 * the request only repeats what the catalog said) or did not succeed: the workflow then runs the call as the tool's
 * own activity, which gives the model the tool's error in its usual words, after the tool's own retries.
 */
async function runOne(
  registry: ToolRegistry,
  request: RunAheadRequest,
  call: ParsedToolCall,
  index: number,
  cancelled: AbortSignal,
): Promise<RanAhead | undefined> {
  const tool = registry.get(call.tool);
  if (!tool?.readOnly || !request.tools.includes(call.tool) || call.parseError !== undefined) return undefined;
  const parsed = tool.schema.safeParse(call.args);
  if (!parsed.success) return undefined;
  const callId = `c${request.iteration}-${index + 1}`;
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const stopped = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(new Error('aborted'))),
  );
  stopped.catch(() => undefined); // raced below; an abort after the race is nobody's error
  cancelled.addEventListener('abort', abort);
  const timeoutMs = Math.min(parseDuration(tool.timeout ?? DEFAULT_TOOL_TIMEOUT) ?? RUN_AHEAD_MAX_MS, RUN_AHEAD_MAX_MS);
  const timer = setTimeout(abort, timeoutMs);
  try {
    const context = { idempotencyKey: `${request.keyPrefix}:${callId}`, signal: controller.signal };
    const output = await Promise.race([tool.handler(parsed.data, context), stopped]);
    const observation = successObservation(output, request.maxObservationTokens);
    return { callId, tool: call.tool, argsJson: JSON.stringify(call.args ?? null), observation };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    cancelled.removeEventListener('abort', abort);
  }
}

/**
 * The reply with the calls read-only tools answered at once (see `readOnly` in defineTool): recorded with the reply,
 * they spare the step the tool's own activity. Nothing runs for a reply the workflow will refuse whole.
 */
export async function runAhead(
  registry: ToolRegistry,
  reply: ModelReply,
  request: RunAheadRequest | undefined,
  cancelled: AbortSignal,
): Promise<ModelReply> {
  if (!request || reply.type !== 'tool_calls' || reply.calls.length > request.maxCalls) return reply;
  const ran = await Promise.all(reply.calls.map((call, index) => runOne(registry, request, call, index, cancelled)));
  const ranAhead = ran.filter((entry): entry is RanAhead => entry !== undefined);
  return ranAhead.length > 0 ? { ...reply, ranAhead } : reply;
}
