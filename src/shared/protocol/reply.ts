import type { TokenUsage } from '../cost';
import { CLARIFICATION_TOOL, FINAL_ANSWER_TOOL, parseClarification, parseFinalAnswer } from './builtin-actions';
import type { ModelReply, ModelToolCall, ParsedToolCall, ReplyBase, TextTags } from './model-io';
import { parseLooseJson } from './loose-json';
import { joinReasoning, splitReasoning, thoughtFrom } from './reasoning';
import { parseTextReply } from './text-format';
import { readWrittenCalls } from './written-calls';
import { errorMessage } from '../errors';

/** Parses one call's arguments; bad JSON is kept as a parse error the model will be told about, never thrown. */
export function parseToolCall(call: ModelToolCall): ParsedToolCall {
  const base = { callId: call.id, tool: call.name, argumentsText: call.argumentsText };
  if (call.argumentsText.trim() === '') return { ...base, args: {} };
  try {
    return { ...base, args: JSON.parse(call.argumentsText) as unknown };
  } catch (error) {
    // Servers and models wrap arguments in a code fence or follow them with prose: the JSON inside still counts.
    const loose = parseLooseJson(call.argumentsText);
    if (loose.ok) return { ...base, args: loose.value };
    const reason = errorMessage(error);
    return { ...base, parseError: `the arguments are not valid JSON (${reason})` };
  }
}

/** A built-in action (final_answer, request_clarification) settles a reply; any other call leaves it open (null). */
function settledBy(call: ParsedToolCall, base: ReplyBase): ModelReply | null {
  if (call.tool === FINAL_ANSWER_TOOL) {
    const parsed = parseFinalAnswer(call.args, call.argumentsText);
    return 'problem' in parsed
      ? { ...base, type: 'malformed', problem: parsed.problem }
      : { ...base, type: 'final_answer', ...parsed };
  }
  if (call.tool === CLARIFICATION_TOOL) {
    const parsed = parseClarification(call.args, call.argumentsText);
    return 'problem' in parsed
      ? { ...base, type: 'malformed', problem: parsed.problem }
      : { ...base, type: 'clarification', callId: call.callId, question: parsed.question };
  }
  return null;
}

/** A refusal (`message.refusal`, or a content filter that let nothing through); reasoning sent apart is its thought. */
export function readRefusal(refusal: string, usage: TokenUsage, reasoning = ''): ModelReply {
  const assistantMessage = { role: 'assistant' as const, content: '' };
  return { ...thoughtFrom(reasoning, ''), usage, assistantMessage, type: 'refusal', refusal };
}

/**
 * Understands a native tool-calling reply: tool calls are actions, no call is the answer. The thought is the reasoning
 * the server sent apart (`reasoning`: a `reasoning_content`/`reasoning` field) or in a leading `<think>` block, then
 * the text beside the calls; a final answer is the text alone, its reasoning never part of it. With `offered` (the
 * tools the request offered), calls the model wrote in its text are its calls.
 */
export function readNativeReply(
  content: string,
  nativeCalls: ModelToolCall[],
  usage: TokenUsage,
  reasoning = '',
  offered?: ReadonlySet<string>,
): ModelReply {
  const split = splitReasoning(content);
  const thinking = joinReasoning(reasoning, split.reasoning);
  // Calls written in the text (a server without a tool parser) are calls, never the answer: see readWrittenCalls.
  const written = offered && nativeCalls.length === 0 ? readWrittenCalls(split.text, offered) : undefined;
  const text = written && 'calls' in written ? written.text : split.text;
  const toolCalls = written && 'calls' in written ? written.calls : nativeCalls;
  const base: ReplyBase = {
    // A final answer's text is the answer, not a thought; with no reasoning it stands for both, as it always has.
    ...thoughtFrom(thinking, toolCalls.length > 0 || thinking === '' ? text : ''),
    usage,
    // Only the text goes back to the model: servers refuse or mis-template reasoning sent back as input.
    assistantMessage: { role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) },
  };
  if (written && 'problem' in written) return { ...base, type: 'malformed', problem: written.problem };
  if (toolCalls.length === 0) {
    if (text === '') {
      const problem =
        thinking === ''
          ? 'Your reply was empty. Call a tool or give the final answer.'
          : 'Your reply had reasoning but no answer and no tool call. Call a tool or give the final answer.';
      return { ...base, type: 'malformed', problem };
    }
    return { ...base, type: 'final_answer', answer: text, confidence: null };
  }
  const calls = toolCalls.map(parseToolCall);
  // A built-in action (answer or question) settles the reply; other calls in the same reply are not run.
  for (const call of calls) {
    const settled = settledBy(call, base);
    if (settled) return settled;
  }
  return { ...base, type: 'tool_calls', calls };
}

/**
 * Understands a text-mode reply; the single action gets a call ID derived from the response ID. Reasoning in a
 * separate field or in `<think>` blocks comes before the Thought section in the step's thought and is not parsed.
 */
export function readTextReply(
  content: string,
  tags: TextTags,
  responseId: string,
  usage: TokenUsage,
  reasoning = '',
): ModelReply {
  const split = splitReasoning(content);
  const parsed = parseTextReply(split.text, tags);
  const base: ReplyBase = {
    ...thoughtFrom(joinReasoning(reasoning, split.reasoning), parsed.thought),
    usage,
    assistantMessage: { role: 'assistant', content: split.text },
  };
  if (parsed.malformed !== undefined) return { ...base, type: 'malformed', problem: parsed.malformed };
  if (parsed.finalAnswer !== undefined)
    return { ...base, type: 'final_answer', answer: parsed.finalAnswer, confidence: null };
  if (!parsed.action) return { ...base, type: 'malformed', problem: 'No action found.' };
  const call: ParsedToolCall = { callId: `${responseId}-0`, ...parsed.action };
  return settledBy(call, base) ?? { ...base, type: 'tool_calls', calls: [call] };
}
