import type { ChatMessage, ModelToolCall, PromptDelta } from './model-io';

/** A prompt the workflow built, by number: what `getPromptQuery` answers. */
export interface PromptSnapshot {
  seq: number;
  messages: ChatMessage[];
}

function sameCalls(a: readonly ModelToolCall[] | undefined, b: readonly ModelToolCall[] | undefined): boolean {
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  return (a ?? []).every((call, i) => {
    const other = b?.[i];
    return (
      other !== undefined &&
      call.id === other.id &&
      call.name === other.name &&
      call.argumentsText === other.argumentsText
    );
  });
}

/** Whether two messages would reach the provider as the same message. */
export function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a.role !== b.role || a.content !== b.content) return false;
  if (a.role === 'tool') return b.role === 'tool' && a.toolCallId === b.toolCallId;
  if (a.role === 'assistant') return b.role === 'assistant' && sameCalls(a.toolCalls, b.toolCalls);
  return true;
}

/**
 * Prompt `seq` as a delta from `previous` (prompt `seq - 1`; absent for the run's first call). `fetch` sends none of
 * it, for a prompt the run's history already holds in another form.
 */
export function promptDelta(previous: PromptSnapshot | undefined, messages: ChatMessage[], fetch = false): PromptDelta {
  const seq = (previous?.seq ?? 0) + 1;
  if (fetch) return { seq, keep: 0, append: [], length: messages.length, fetch: true };
  const before = previous?.messages ?? [];
  let keep = 0;
  while (keep < before.length && keep < messages.length && sameMessage(before[keep]!, messages[keep]!)) keep += 1;
  return { seq, keep, append: messages.slice(keep), length: messages.length };
}

/** Messages in a prompt's text, a measure of what holding it costs. */
export function promptChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.content.length;
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) chars += call.name.length + call.argumentsText.length;
  }
  return chars;
}

/**
 * Prompt `delta.seq` from prompt `delta.seq - 1`; null when `base` is not that prompt or the result has the wrong
 * length, so the caller fetches the prompt instead of sending the model a wrong one.
 */
export function applyPromptDelta(base: PromptSnapshot | undefined, delta: PromptDelta): ChatMessage[] | null {
  if (delta.fetch) return null;
  if (delta.keep === 0) return delta.append.length === delta.length ? delta.append : null;
  if (!base || base.seq !== delta.seq - 1 || base.messages.length < delta.keep) return null;
  const messages = [...base.messages.slice(0, delta.keep), ...delta.append];
  return messages.length === delta.length ? messages : null;
}
