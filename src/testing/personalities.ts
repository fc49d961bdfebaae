import type { RecordedRequest, ScriptedToolCall, ScriptedTurn } from './scripted-turn';
import { canonicalText, sloppyText } from './scripted-text';

/*
 * Real OpenAI-compatible servers do not all reply alike to the same model behaviour. A personality is the shape one
 * kind of server gives a scripted turn, so the same script can be played against the agent's reply reader as each of
 * them would send it. Turns scripted as `content` are sent as written by every personality (they are what a server
 * sent, e.g. a recording), except that the two reasoning personalities still add a `thought` as reasoning.
 */

/** Every personality, `plain` first (the default). */
export const PERSONALITIES = [
  'plain',
  'no-text-calls',
  'reasoning-field',
  'think-tags',
  'sloppy-text',
  'mistral',
  'unparsed-calls',
] as const;

/**
 * How the scripted model shapes a turn. `plain`: the thought is the text beside the tool calls. `no-text-calls`
 * (GPT-4o-style): no text beside tool calls. `reasoning-field` (vLLM's reasoning parsers, DeepSeek-reasoner): the
 * thought in `reasoning_content`. `think-tags` (Qwen3, DeepSeek-R1 via Ollama or llama.cpp): the thought in
 * `<think>…</think>` at the start of the text. `sloppy-text`: text mode written the ways small models write it.
 * `mistral` (Mistral's API, vLLM serving Mistral models): nine-character call IDs, and a request that sends any other
 * call ID back is refused with HTTP 400. `unparsed-calls` (vLLM or Ollama serving a model without its tool parser):
 * native calls written into the text, as Hermes/Qwen `<tool_call>` blocks, Llama's bare JSON or Mistral's
 * `[TOOL_CALLS]`, in turn.
 */
export type Personality = (typeof PERSONALITIES)[number];

/** What a reply carries once shaped: the message's text (null: none at all), its separate reasoning, its calls. */
export interface ShapedReply {
  content: string | null;
  /** Sent as `reasoning_content` (a stream's reasoning deltas come before its text). */
  reasoning?: string;
  /** Sent as native `tool_calls`; text mode writes its action in `content` instead. */
  toolCalls: readonly ScriptedToolCall[];
}

/** Whether a request is in text mode: the agent sends a stop sequence (its observation tag) and offers no tools. */
export function isTextModeRequest(request: Pick<RecordedRequest, 'tools' | 'stop'>): boolean {
  return request.stop !== undefined && request.tools === undefined;
}

/**
 * The reasoning a reasoning model shows before an answer whose turn scripted none: reasoning models always reason,
 * and a sentence that repeats the answer is what the coherence heuristic can tie to it.
 */
function reasoningForAnswer(answer: string): string {
  const words = answer.trim().split(/\s+/);
  const gist = words.length > 16 ? `${words.slice(0, 16).join(' ')}…` : words.join(' ');
  return `What I have found is enough to answer, so I answer: ${gist}`;
}

/** The reasoning a personality adds, put where it sends reasoning; personalities without a reasoning channel add none. */
function withReasoning(personality: Personality, reply: ShapedReply, reasoning: string | undefined): ShapedReply {
  if (reasoning === undefined) return reply;
  if (personality === 'reasoning-field') return { ...reply, reasoning };
  if (personality === 'think-tags')
    return { ...reply, content: `<think>\n${reasoning}\n</think>\n\n${reply.content ?? ''}` };
  return reply;
}

/** Where a turn is played: its index in its script, the script's seed, and whether the request is in text mode. */
export interface TurnContext {
  index: number;
  seed: number;
  textMode: boolean;
}

/** Shapes a successful turn as `personality` sends it. */
export function shapeTurn(turn: ScriptedTurn, personality: Personality, context: TurnContext): ShapedReply {
  const calls = turn.toolCalls ?? [];
  if (turn.content !== undefined)
    return withReasoning(personality, { content: turn.content, toolCalls: calls }, turn.thought);
  // A final answer's reasoning: reasoning models give one even when the script has no thought for it.
  const reasoning =
    calls.length === 0 && turn.answer !== undefined ? (turn.thought ?? reasoningForAnswer(turn.answer)) : turn.thought;
  if (context.textMode) {
    const text =
      personality === 'sloppy-text'
        ? sloppyText(turn, reasoning, context.index, context.seed)
        : canonicalText(turn, reasoning);
    return withReasoning(personality, { content: text, toolCalls: [] }, reasoning);
  }
  switch (personality) {
    case 'plain':
    case 'mistral': // Mistral's peculiarity is its call IDs (mistralCallId)
    case 'sloppy-text': // sloppiness is about text mode: with native tools it is plain
      return { content: turn.answer ?? turn.thought ?? '', toolCalls: calls };
    case 'unparsed-calls':
      return calls.length > 0
        ? { content: writtenCalls(turn.thought ?? '', calls, context.index + context.seed), toolCalls: [] }
        : { content: turn.answer ?? turn.thought ?? '', toolCalls: [] };
    case 'no-text-calls':
      return calls.length > 0
        ? { content: null, toolCalls: calls }
        : { content: turn.answer ?? turn.thought ?? '', toolCalls: [] };
    case 'reasoning-field':
      return withReasoning(
        personality,
        { content: calls.length > 0 ? null : (turn.answer ?? ''), toolCalls: calls },
        reasoning,
      );
    case 'think-tags':
      return withReasoning(
        personality,
        { content: calls.length > 0 ? '' : (turn.answer ?? ''), toolCalls: calls },
        reasoning,
      );
  }
}

/**
 * Calls as a model writes them when the server has no tool parser for it: Hermes/Qwen `<tool_call>` blocks after the
 * thought, Llama's bare `{"name", "parameters"}` object (one call, nothing else), or Mistral's `[TOOL_CALLS]` list,
 * chosen by `turn` so one script meets all three.
 */
function writtenCalls(thought: string, calls: readonly ScriptedToolCall[], turn: number): string {
  const argsOf = (call: ScriptedToolCall): unknown => call.args ?? JSON.parse(call.rawArguments ?? '{}');
  const form = calls.length > 1 && turn % 3 === 1 ? 0 : turn % 3;
  if (form === 1) {
    const [call] = calls;
    return JSON.stringify({ name: call?.name, parameters: call ? argsOf(call) : {} });
  }
  if (form === 2) {
    const list = calls.map((call) => ({ name: call.name, arguments: argsOf(call) }));
    return `${thought}${thought ? '\n' : ''}[TOOL_CALLS]${JSON.stringify(list)}`;
  }
  const blocks = calls.map(
    (call) => `<tool_call>\n${JSON.stringify({ name: call.name, arguments: argsOf(call) })}\n</tool_call>`,
  );
  return [thought, ...blocks].filter((part) => part !== '').join('\n');
}

/**
 * A call ID in Mistral's form (nine letters and digits; its own look random, like `D681PevKs`), one per reply and
 * position: `M`, the reply's index and `X`, the position, in base 36, padded with `Z` (base 36 is lower case, so no
 * two calls share one).
 */
export function mistralCallId(index: number, position: number): string {
  return `M${index.toString(36)}X${position.toString(36)}`.padEnd(9, 'Z');
}

/** An error a personality's server answers a request with before reading it, as that server words it. */
export interface RequestRefusal {
  status: number;
  body: unknown;
}

/**
 * Mistral's API refuses a conversation that sends back a call ID that is not nine letters and digits, or a tool
 * result whose ID no earlier call had (error body as Mistral's API sends it, code "3280").
 */
export function refusedRequest(personality: Personality, request: RecordedRequest): RequestRefusal | undefined {
  if (personality !== 'mistral') return undefined;
  const issued = new Set<string>();
  for (const message of request.messages) {
    const ids: string[] = [];
    if (Array.isArray(message.tool_calls))
      for (const call of message.tool_calls as Array<{ id?: unknown }>) ids.push(String(call.id));
    if (message.role === 'tool') ids.push(String(message.tool_call_id));
    for (const id of ids) {
      const unpaired = message.role === 'tool' && !issued.has(id);
      if (/^[A-Za-z0-9]{9}$/.test(id) && !unpaired) {
        issued.add(id);
        continue;
      }
      const text = unpaired
        ? `Unexpected tool call id ${id} in tool results`
        : `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;
      return {
        status: 400,
        body: { object: 'error', message: text, type: 'invalid_function_call', param: null, code: '3280' },
      };
    }
  }
  return undefined;
}
