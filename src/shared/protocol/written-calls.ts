import { parseLooseJson, stripCodeFence } from './loose-json';
import type { ModelToolCall } from './model-io';

/**
 * Tool calls a model wrote into its text although tools were offered natively: what models send when the server has
 * no tool parser for them (vLLM without `--tool-call-parser`, Ollama or LM Studio with a template that lacks one).
 * Read as calls, they run like any other; left as text, the raw block used to become a successful final answer.
 */
export type WrittenCalls =
  /** The calls (no server IDs: the loop makes them up) and the text around them, which is the thought. */
  | { calls: ModelToolCall[]; text: string }
  /** A call was plainly written but could not be read: feedback asking for a native call. */
  | { problem: string };

/** Hermes/Qwen blocks; the last may be left open when the server stopped at the closing tag. */
const TOOL_CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
/** Mistral's marker: a JSON list after it (older tokenizers) or `name[ARGS]{…}` (v11 and later), once per call. */
const MISTRAL_MARKER = '[TOOL_CALLS]';
/** Llama 3.1's and Llama 4's markers for a call, which may open the text. */
const LLAMA_PREFIX = /^\s*(?:<\|python_tag\|>|<\|python_start\|>)/;
const LLAMA_SUFFIX = /(?:<\|python_end\|>|<\|eom_id\|>|<\|eot_id\|>)\s*$/;

const NATIVE_PLEASE =
  'Call tools through the tool-calling interface (a native tool call), not by writing the call in your text.';

/** JSON as models write it (Python dicts and trailing commas too), or undefined. */
function readJson(text: string): unknown {
  const read = parseLooseJson(text);
  return read.ok ? read.value : undefined;
}

/** One call object as the families write it: `{name, arguments}`, `{name, parameters}`, or wrapped in `function`. */
function callOf(value: unknown): ModelToolCall | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const fn =
    typeof record.function === 'object' && record.function !== null
      ? (record.function as Record<string, unknown>)
      : record;
  if (typeof fn.name !== 'string' || fn.name.trim() === '') return undefined;
  const args = fn.arguments ?? fn.parameters ?? {};
  return { id: '', name: fn.name.trim(), argumentsText: typeof args === 'string' ? args : JSON.stringify(args) };
}

/** A list of calls (or one call), every one readable; undefined when any is not. */
function callsOf(value: unknown): ModelToolCall[] | undefined {
  const list = Array.isArray(value) ? value : [value];
  const calls = list.map(callOf);
  return list.length > 0 && calls.every((call) => call !== undefined) ? calls : undefined;
}

function hermes(text: string): WrittenCalls | undefined {
  const blocks = [...text.matchAll(TOOL_CALL_BLOCK)];
  // A block that does not open with JSON is the tag mentioned in prose (an answer about the format), not a call.
  if (!blocks.some(([, body]) => /^(?:```\w*\s*)?[[{]/.test(body ?? ''))) return undefined;
  const calls: ModelToolCall[] = [];
  for (const [, body] of blocks) {
    const read = callsOf(readJson(stripCodeFence(body ?? '')));
    if (!read) return { problem: `Your reply wrote a <tool_call> block that could not be read. ${NATIVE_PLEASE}` };
    calls.push(...read);
  }
  return { calls, text: text.replace(TOOL_CALL_BLOCK, '').trim() };
}

function mistral(text: string): WrittenCalls | undefined {
  const start = text.indexOf(MISTRAL_MARKER);
  if (start < 0) return undefined;
  const calls: ModelToolCall[] = [];
  const problem = { problem: `Your reply wrote a ${MISTRAL_MARKER} call that could not be read. ${NATIVE_PLEASE}` };
  for (const part of text.slice(start + MISTRAL_MARKER.length).split(MISTRAL_MARKER)) {
    const body = part.trim();
    const args = body.indexOf('[ARGS]');
    if (!body.startsWith('[') && args > 0) {
      // v11: `name[ARGS]{…}`
      const name = body.slice(0, args).trim();
      const value = readJson(body.slice(args + '[ARGS]'.length).trim());
      if (!/^[\w.-]+$/.test(name) || value === undefined) return problem;
      calls.push({ id: '', name, argumentsText: JSON.stringify(value) });
      continue;
    }
    const read = callsOf(readJson(body));
    if (!read) return problem;
    calls.push(...read);
  }
  return { calls, text: text.slice(0, start).trim() };
}

/**
 * The whole text is a call in JSON (Llama's `{"name", "parameters"}`, possibly after `<|python_tag|>` or in a code
 * fence) naming offered tools. Any other JSON is an answer: only an offered tool's name makes it a call.
 */
function bareJson(text: string, offered: ReadonlySet<string>): WrittenCalls | undefined {
  // After Llama's call marker, the text can be nothing but a call.
  const marked = LLAMA_PREFIX.test(text);
  const body = stripCodeFence(text.replace(LLAMA_PREFIX, '').replace(LLAMA_SUFFIX, '')).trim();
  const calls = /^[[{][\s\S]*[\]}]$/.test(body) ? callsOf(readJson(body)) : undefined;
  if (calls && (marked || calls.every((call) => offered.has(call.name)))) return { calls, text: '' };
  return marked
    ? { problem: `Your reply wrote a call after <|python_tag|> that could not be read. ${NATIVE_PLEASE}` }
    : undefined;
}

/**
 * Reads the calls written in a native-mode reply's text (when the reply made none natively): `<tool_call>` blocks,
 * `[TOOL_CALLS]`, or the whole text as a call in JSON naming an offered tool. Undefined when the text is no call.
 */
export function readWrittenCalls(text: string, offered: ReadonlySet<string>): WrittenCalls | undefined {
  return hermes(text) ?? mistral(text) ?? bareJson(text, offered);
}
