/**
 * Most characters of reasoning a step keeps as its thought. Reasoning models write thousands of tokens before a call;
 * the thought travels in history, in the trace and in later prompts, so only its end (where the model decides) is kept.
 */
export const MAX_THOUGHT_CHARS = 4000;

/** Opening and closing tags reasoning models put around their reasoning inside the reply text. */
const THINK_BLOCK = /<(think|thinking|reasoning)>([\s\S]*?)(?:<\/\1>|$)/gi;
const CLOSING_TAG = /<\/(?:think|thinking|reasoning)>/i;

/** A reply's text split into the reasoning it carried in `<think>` blocks and the text meant for the reader. */
export interface SplitReply {
  reasoning: string;
  text: string;
}

/**
 * Takes `<think>…</think>` blocks (also `<thinking>`, `<reasoning>`) out of a reply's text. Two forms real servers
 * send are handled too: a closing tag without an opening one (chat templates that open the block in the prompt, as
 * DeepSeek-R1's does), and an opening tag never closed (the reply was cut off while reasoning): everything before the
 * lone closing tag, or after the lone opening one, is reasoning.
 */
export function splitReasoning(content: string): SplitReply {
  const closing = CLOSING_TAG.exec(content);
  const opening = /<(?:think|thinking|reasoning)>/i.exec(content);
  let head = '';
  let rest = content;
  if (closing && (!opening || opening.index > closing.index)) {
    head = content.slice(0, closing.index);
    rest = content.slice(closing.index + closing[0].length);
  }
  const blocks: string[] = head.trim() === '' ? [] : [head.trim()];
  const text = rest.replace(THINK_BLOCK, (_match, _tag: string, inner: string) => {
    if (inner.trim() !== '') blocks.push(inner.trim());
    return '';
  });
  return { reasoning: blocks.join('\n\n'), text: text.trim() };
}

/** The end of a long reasoning, marked as cut, so a thought stays a bounded part of history and prompts. */
export function boundThought(text: string): string {
  if (text.length <= MAX_THOUGHT_CHARS) return text;
  const dropped = text.length - MAX_THOUGHT_CHARS;
  return `[… ${dropped} earlier characters of reasoning not kept] ${text.slice(-MAX_THOUGHT_CHARS)}`;
}

/** Joins the parts of a thought that are present (a reasoning field, `<think>` blocks, the visible text). */
export function joinThought(...parts: readonly string[]): string {
  return boundThought(
    parts
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .join('\n\n'),
  );
}
