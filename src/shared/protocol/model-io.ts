import type { TokenUsage } from '../types';

/** How the model is asked for actions: the provider's tool calling, or tagged text for models without it. */
export type ToolCallingMode = 'native' | 'text';

/** One tool call as the model produced it (arguments still unparsed text). */
export interface ModelToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

/** A chat message in provider-neutral, JSON-safe form. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string };

/** The tags of the text protocol. */
export interface TextTags {
  thought: string;
  action: string;
  observation: string;
}

/** Input of the `callModel` activity. */
export interface CallModelInput {
  messages: ChatMessage[];
  /** Overrides the worker's OPENAI_MODEL. */
  model?: string;
  mode: ToolCallingMode;
  /** Names of the tools offered; empty when the model must answer without tools. */
  tools: string[];
  tags: TextTags;
  /** Shown in the Temporal UI and logs, e.g. "step 3". */
  label: string;
  /** Offer the built-in request_clarification action. */
  allowClarification?: boolean;
  /** Subagents the model may delegate to (name → description); offers the built-in delegate action. */
  subagents?: Record<string, string>;
  /** JSON Schema the final answer must match (from outputSchema or a signature). */
  outputSchema?: Record<string, unknown>;
}

/** A parsed tool call: args are present when the arguments text was valid JSON. */
export interface ParsedToolCall {
  callId: string;
  tool: string;
  argumentsText: string;
  args?: unknown;
  /** Why the arguments could not be parsed, for feedback to the model. */
  parseError?: string;
}

/** Output of the `callModel` activity: already parsed and classified, never a raw provider object. */
export interface ModelReply {
  thought: string;
  toolCalls: ParsedToolCall[];
  /** Set when the reply is a final answer (no tool call, or the built-in final_answer tool). */
  finalAnswer: string | null;
  /** Set when the reply could not be understood; fed back to the model. */
  malformed: string | null;
  /** Set when the model asks the user a question (the built-in request_clarification action). */
  clarification: { callId: string; question: string } | null;
  /** The confidence in [0, 1] the model gave with its final answer, if any. */
  confidence: number | null;
  usage: TokenUsage;
  /** The raw assistant message, replayed to the model in the next prompt. */
  assistantMessage: ChatMessage & { role: 'assistant' };
}

/** Name of the built-in tool native-mode models may call to finish. */
export const FINAL_ANSWER_TOOL = 'final_answer';
/** Name of the built-in action with which a model asks the user a question. */
export const CLARIFICATION_TOOL = 'request_clarification';
/** Name of the built-in action that hands a task to a named subagent. */
export const DELEGATE_TOOL = 'delegate';

/** Tag that introduces the answer in text mode. */
export const FINAL_ANSWER_TAG = 'Final Answer:';

/** The tag of the arguments line, derived from the action tag: `Action:` gives `Action Input:`. */
export function actionInputTag(tags: TextTags): string {
  return `${tags.action.replace(/:\s*$/, '')} Input:`;
}
