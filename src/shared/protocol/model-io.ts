import type { ModelSettings } from '../model-settings';
import { visibleThought } from './reasoning';
import type { ServerCallId } from '../types';
import type { TokenUsage } from '../cost';
import type { RanAhead, RunAheadRequest } from '../tool-protocol';
import type { AgentEvent } from '../events';

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

/** Input of the `callModel` activity: the prompt whole (`messages`) or as a delta from the previous one (`prompt`). */
export interface CallModelInput {
  /** The whole prompt: local model calls, whose input is not recorded. */
  messages?: ChatMessage[];
  /** The prompt as what changed since the run's previous call; the worker rebuilds it. */
  prompt?: PromptDelta;
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
  /** JSON Schema the final answer must match (from `output.schema` or a signature). */
  outputSchema?: Record<string, unknown>;
  /**
   * Most completion tokens the reply may use (sent as `max_tokens`): the config's `maxTokens` or what the run's token
   * budget leaves, whichever is smaller.
   */
  maxTokens?: number;
  /** Stream the completion and signal its text to the workflow as it arrives (config `stream`), for this iteration. */
  stream?: { iteration: number };
  /** The config's model settings; absent when it sets none (recorded histories hold inputs without it). */
  settings?: ModelSettings;
  /** Tools the worker may run as soon as the reply names them (absent: none). */
  runAhead?: RunAheadRequest;
  /**
   * The run's events since the previous call's, for followers that read history (`publishEvents`). The
   * worker ignores them: they ride on a command the run issues anyway, so reading them costs no engine action.
   */
  events?: AgentEvent[];
}

/** A parsed tool call: args are present when the arguments text was valid JSON. */
export interface ParsedToolCall extends ServerCallId {
  /** As read: the server's ID ('' when it gave none or repeated one); the loop then gives it the run's own. */
  callId: string;
  tool: string;
  argumentsText: string;
  args?: unknown;
  /** Why the arguments could not be parsed, for feedback to the model. */
  parseError?: string;
}

/** What every model reply carries, whatever it asks for. */
export interface ReplyBase {
  /**
   * The reasoning text: what the model reasoned apart (a reasoning field or `<think>` block), then its text (native
   * mode: the assistant text beside calls; text mode: the Thought section).
   */
  thought: string;
  /** How many characters at the start of `thought` are reasoning given apart (absent: none; see visibleThought). */
  reasoningChars?: number;
  usage: TokenUsage;
  /** Attempts the call took, when more than one (a retried paid call: the cost ledger counts the retries). */
  attempts?: number;
  /** The raw assistant message, replayed to the model in the next prompt. */
  assistantMessage: ChatMessage & { role: 'assistant' };
  /**
   * With an output schema: {@link answerCandidate} checked against it by the worker, which owns the validator (the
   * workflow carries no JSON Schema validator). Absent without a schema.
   */
  output?: OutputCheck;
}

/** A final answer checked against the output schema: the parsed value, or feedback the model can act on. */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The text a reply would give as the final answer: the answer itself; a tool-call reply's thought (a success phrase
 * in it ends the run with the thought as the answer); else the reply's text (a forced answer the model did not give
 * as one), never its reasoning: a reply that was all reasoning gives no answer. (Before reasoning was read apart, a
 * reply's thought was its text, so replies in older histories give the same candidate either way.)
 */
export function answerCandidate(reply: ModelReply): string {
  if (reply.type === 'final_answer') return reply.answer;
  if (reply.type === 'refusal') return reply.refusal;
  if (reply.type === 'tool_calls') return visibleThought(reply.thought, reply.reasoningChars);
  return reply.assistantMessage.content.trim();
}

/**
 * Output of the `callModel` activity, already parsed and classified: tool calls to run, a final answer, a question
 * for the user (the built-in request_clarification action), or a reply that could not be understood (fed back).
 */
export type ModelReply = ReplyBase &
  (
    | {
        type: 'tool_calls';
        calls: ParsedToolCall[];
        /** Calls read-only tools answered inside the model call (absent when none did). */
        ranAhead?: RanAhead[];
      }
    | {
        type: 'final_answer';
        answer: string;
        /** The confidence in [0, 1] given with the answer, if any. */ confidence: number | null;
      }
    | { type: 'clarification'; callId: string; question: string }
    | { type: 'malformed'; problem: string }
    /**
     * The model declined (`message.refusal`, or a content filter that let nothing through): the run ends with
     * `failure` and the refusal as its answer. Arguing with a refusal only repeats it.
     */
    | { type: 'refusal'; refusal: string }
  );

/**
 * A prompt as what changed since the run's previous model call. Every `callModel` input is stored in the run's
 * history, and a prompt repeats the previous one plus a step, so full prompts made a run's history grow with the
 * square of its steps; a delta is one step's worth. The worker rebuilds the prompt from the one it sent before
 * (`prompt-cache.ts`), or asks the workflow for it (`getPromptQuery`) when it does not have it.
 */
export interface PromptDelta {
  /** This prompt's number among the run's model calls (1 = the first). */
  seq: number;
  /** Messages of prompt `seq - 1` kept, from its start; 0 means `append` is the whole prompt. */
  keep: number;
  /** Messages after the kept ones. */
  append: ChatMessage[];
  /** Messages in the whole prompt: what the rebuilt prompt must have. */
  length: number;
  /**
   * Nothing of the prompt travels: the worker asks the workflow for it. A continued run's first prompt is mostly the
   * window of steps carried over, which its start event already records (and the previous run's hand-over too).
   */
  fetch?: true;
}
