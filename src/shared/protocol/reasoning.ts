/**
 * Most characters of reasoning a step keeps. Reasoning models write thousands of tokens before a call; it travels in
 * history and in the trace, so only its end (where the model decides) is kept.
 */
export const MAX_THOUGHT_CHARS = 4000;

/** A reasoning block opening the reply: the tag, its reasoning, and its closing tag or the end (a cut-off reply). */
const LEADING_BLOCK = /^\s*<(think|thinking|reasoning)>([\s\S]*?)(?:<\/\1>|$)/i;
/** A closing tag on its own, outside backticks: chat templates that open the block in the prompt send only this. */
const LONE_CLOSING_TAG = /(?<!`)<\/(?:think|thinking|reasoning)>(?!`)/i;
const ANY_OPENING_TAG = /<(?:think|thinking|reasoning)>/i;

/** A reply's text split into the reasoning it opened with and the text meant for the reader. */
export interface SplitReply {
  reasoning: string;
  text: string;
}

/**
 * Takes the reasoning block that reasoning models put at the start of a reply (`<think>…</think>`, also `<thinking>`
 * and `<reasoning>`) out of its text, with the two forms real servers send besides: a closing tag without an opening
 * one (DeepSeek-R1's chat template opens the block in the prompt), and an opening tag never closed (the reply was cut
 * off while reasoning). Only the start counts: an answer that mentions the tags later, or shows them in code, keeps
 * every word.
 */
export function splitReasoning(content: string): SplitReply {
  const leading = LEADING_BLOCK.exec(content);
  if (leading) return { reasoning: (leading[2] ?? '').trim(), text: content.slice(leading[0].length).trim() };
  const closing = LONE_CLOSING_TAG.exec(content);
  if (closing && !ANY_OPENING_TAG.test(content.slice(0, closing.index)) && !content.includes('```')) {
    return {
      reasoning: content.slice(0, closing.index).trim(),
      text: content.slice(closing.index + closing[0].length).trim(),
    };
  }
  return { reasoning: '', text: content.trim() };
}

/** The end of a long text, marked as cut, so a thought stays a bounded part of history and prompts. */
export function boundThought(text: string): string {
  if (text.length <= MAX_THOUGHT_CHARS) return text;
  const dropped = text.length - MAX_THOUGHT_CHARS;
  return `[… ${dropped} earlier characters not kept] ${text.slice(-MAX_THOUGHT_CHARS)}`;
}

/** The parts of a reasoning that are present (a reasoning field, a `<think>` block), joined and bounded. */
export function joinReasoning(...parts: readonly string[]): string {
  return boundThought(
    parts
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .join('\n\n'),
  );
}

/**
 * A reply's thought: the reasoning the model gave apart, then the text it wrote (kept to its end). The reasoning comes
 * first and whole, so {@link visibleThought} takes it off again by its length, `reasoningChars`.
 */
export function thoughtFrom(reasoning: string, text: string): { thought: string; reasoningChars?: number } {
  const written = boundThought(text.trim());
  if (reasoning === '') return { thought: written };
  return { thought: written === '' ? reasoning : `${reasoning}\n\n${written}`, reasoningChars: reasoning.length };
}

/**
 * The part of a thought the model wrote as text, without the reasoning it gave apart (`reasoningChars` long, at the
 * start). That is what goes back to the model in later prompts and what stop phrases are matched in: reasoning
 * servers tell clients not to send it back, and musing about a phrase is not saying it.
 */
export function visibleThought(thought: string, reasoningChars: number | undefined): string {
  return reasoningChars ? thought.slice(reasoningChars).trim() : thought;
}
