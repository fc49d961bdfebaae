import { argumentsText, contentText, reasoningText, refusalText } from './completion-reader';
import { isJsonObject, textOf, type Json } from './server-json';

/** Whether streamed arguments are complete: a call sent whole, not one still arriving. */
function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A tool call being put together from a stream's pieces. */
interface CallPieces {
  id: string;
  name: string;
  args: string;
}

/**
 * Puts a streamed reply back together into the message a non-streaming call returns, whatever the server's chunks
 * look like: text as a string or as parts, reasoning under any of its names, and tool calls in pieces.
 */
export class StreamAssembly {
  content = '';
  reasoning = '';
  /** A refusal's pieces (`delta.refusal`), joined. */
  refusal = '';
  finishReason = 'stop';
  private readonly calls: CallPieces[] = [];
  /** Where the latest call of each `index` is: Ollama numbers every whole call 0. */
  private readonly byIndex = new Map<number, number>();

  /** Adds one chunk's delta; returns the text and reasoning it carried, for subscribers. */
  add(delta: Json, finishReason: unknown): string {
    const text = contentText(delta.content);
    const reasoning = reasoningText(delta);
    this.content += text;
    this.reasoning += reasoning;
    this.refusal += refusalText(delta);
    if (Array.isArray(delta.tool_calls))
      for (const piece of delta.tool_calls) if (isJsonObject(piece)) this.addCall(piece);
    if (textOf(finishReason) !== '') this.finishReason = textOf(finishReason);
    return reasoning + text;
  }

  /**
   * One tool-call piece. Pieces belong to the call of their `index`; a piece that names a function starts a new call
   * when its call already has a name and the piece brings another ID (Ollama sends whole calls, each at index 0) or,
   * without an index, any name (servers that send every call whole). A piece without a name never starts one, so a
   * server that sends a new ID with every piece, or repeats the name, still builds one call.
   */
  private addCall(piece: Json): void {
    const fn = isJsonObject(piece.function) ? piece.function : {};
    const id = textOf(piece.id);
    const name = textOf(fn.name);
    const index = Number.isInteger(piece.index) && (piece.index as number) >= 0 ? (piece.index as number) : undefined;
    const known =
      index !== undefined ? this.byIndex.get(index) : this.calls.length > 0 ? this.calls.length - 1 : undefined;
    const current = known === undefined ? undefined : this.calls[known];
    // Only a call whose arguments are whole can be followed by another at the same place: before that, a repeated
    // name (or a new ID on every piece) is the same call going on.
    const anotherCall =
      current !== undefined &&
      name !== '' &&
      current.name !== '' &&
      (index === undefined || (id !== '' && id !== current.id)) &&
      isWholeJson(current.args);
    const position = current === undefined || anotherCall ? this.calls.length : (known as number);
    const call = (this.calls[position] ??= { id: '', name: '', args: '' });
    if (index !== undefined) this.byIndex.set(index, position);
    if (id !== '' && call.id === '') call.id = id;
    if (call.name === '') call.name = name;
    call.args += argumentsText(fn.arguments);
  }

  /** Characters received so far: text, reasoning and calls, all of which a reply would carry into history. */
  size(): number {
    return (
      this.content.length +
      this.reasoning.length +
      this.refusal.length +
      this.calls.reduce((sum, call) => sum + call.name.length + call.args.length, 0)
    );
  }

  /** The assistant message, as a non-streaming reply carries it. */
  message(): Json {
    return {
      role: 'assistant',
      content: this.content,
      ...(this.reasoning !== '' ? { reasoning_content: this.reasoning } : {}),
      ...(this.refusal !== '' ? { refusal: this.refusal } : {}),
      ...(this.calls.length > 0
        ? {
            tool_calls: this.calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.args },
            })),
          }
        : {}),
    };
  }
}
