import type { ChatCompletion } from 'openai/resources/chat/completions';
import { CHARS_PER_TOKEN } from '../../shared/observation';
import {
  CLARIFICATION_TOOL,
  FINAL_ANSWER_TOOL,
  type ModelReply,
  type ModelToolCall,
  type ParsedToolCall,
  type TextTags,
} from '../../shared/protocol/model-io';
import type { TokenUsage } from '../../shared/types';
import { parseTextReply } from '../../shared/protocol/text-format';

function parseToolCall(call: ModelToolCall): ParsedToolCall {
  const base = { callId: call.id, tool: call.name, argumentsText: call.argumentsText };
  if (call.argumentsText.trim() === '') return { ...base, args: {} };
  try {
    return { ...base, args: JSON.parse(call.argumentsText) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ...base, parseError: `the arguments are not valid JSON (${reason})` };
  }
}

/** The non-blank text of `args[field]` (JSON values rendered as JSON), or null. */
function fieldText(args: unknown, field: 'answer' | 'question'): string | null {
  if (typeof args !== 'object' || args === null || !(field in args)) return null;
  const value = (args as Record<string, unknown>)[field];
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.trim() === '' ? null : text;
}

/** A confidence in [0, 1] given beside the answer; anything else is ignored rather than refused. */
function confidenceOf(args: unknown): number | null {
  const value = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).confidence : undefined;
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : null;
}

type Settled = Pick<ModelReply, 'finalAnswer' | 'malformed' | 'clarification' | 'confidence'>;

/** The built-in actions (final_answer, request_clarification) settle a reply; other calls leave it open (null). */
function builtinAction(call: ParsedToolCall): Settled | null {
  const none = { finalAnswer: null, malformed: null, clarification: null, confidence: null };
  if (call.tool === FINAL_ANSWER_TOOL) {
    const answer = fieldText(call.args, 'answer');
    if (answer !== null) return { ...none, finalAnswer: answer, confidence: confidenceOf(call.args) };
    return { ...none, malformed: `${FINAL_ANSWER_TOOL} needs {"answer": "..."}; got ${call.argumentsText || 'nothing'}` };
  }
  if (call.tool === CLARIFICATION_TOOL) {
    const question = fieldText(call.args, 'question');
    if (question !== null) return { ...none, clarification: { callId: call.callId, question } };
    return { ...none, malformed: `${CLARIFICATION_TOOL} needs {"question": "..."}; got ${call.argumentsText || 'nothing'}` };
  }
  return null;
}

/** Reads usage from the response; when an endpoint omits it, falls back to the character estimate. */
export function readUsage(completion: ChatCompletion, promptChars: number, replyChars: number): TokenUsage {
  const usage = completion.usage;
  if (usage) {
    return {
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
    };
  }
  const promptTokens = Math.ceil(promptChars / CHARS_PER_TOKEN);
  const completionTokens = Math.ceil(replyChars / CHARS_PER_TOKEN);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** Understands a native tool-calling reply: text is the thought, tool calls are actions, no call is the answer. */
export function readNativeReply(content: string, toolCalls: ModelToolCall[], usage: TokenUsage): ModelReply {
  const thought = content.trim();
  const assistantMessage = { role: 'assistant' as const, content, ...(toolCalls.length ? { toolCalls } : {}) };
  const reply = { thought, usage, assistantMessage, toolCalls: [] as ParsedToolCall[], finalAnswer: null, malformed: null, clarification: null, confidence: null };
  if (toolCalls.length === 0) {
    if (thought === '') return { ...reply, malformed: 'Your reply was empty. Call a tool or give the final answer.' };
    return { ...reply, finalAnswer: thought };
  }
  const parsed = toolCalls.map(parseToolCall);
  // A built-in action (answer or question) settles the reply; other calls in the same reply are not run.
  for (const call of parsed) {
    const settled = builtinAction(call);
    if (settled) return { ...reply, ...settled };
  }
  return { ...reply, toolCalls: parsed };
}

/** Understands a text-mode reply; the single action gets a call ID derived from the response ID. */
export function readTextReply(content: string, tags: TextTags, responseId: string, usage: TokenUsage): ModelReply {
  const parsed = parseTextReply(content, tags);
  const assistantMessage = { role: 'assistant' as const, content };
  const base = { thought: parsed.thought, usage, assistantMessage, toolCalls: [] as ParsedToolCall[], clarification: null, confidence: null };
  if (parsed.malformed !== undefined) return { ...base, finalAnswer: null, malformed: parsed.malformed };
  if (parsed.finalAnswer !== undefined) return { ...base, finalAnswer: parsed.finalAnswer, malformed: null };
  const action = parsed.action;
  if (!action) return { ...base, finalAnswer: null, malformed: 'No action found.' };
  const call: ParsedToolCall = { callId: `${responseId}-0`, ...action };
  return { ...base, ...(builtinAction(call) ?? { toolCalls: [call], finalAnswer: null, malformed: null }) };
}
