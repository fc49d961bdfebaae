import { DurableAgentError } from '../errors';
/**
 * JSON as models actually write it: fenced in markdown, followed (or preceded) by prose, as a Python dict literal,
 * with trailing commas or bare keys. Pure and sandbox-safe, so text-mode replies and native tool-call arguments
 * (which arrive as strings) are read by one definition.
 */

/** What {@link parseLooseJson} read: the value, and whether the text needed repair; or why it could not be read. */
export type LooseJsonResult = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string };

/** Deeper nesting is refused rather than risking the stack on adversarial model output. */
const MAX_DEPTH = 200;

/** Characters that may follow a closing quote; any other makes the quote an apostrophe inside the string. */
const AFTER_CLOSING_QUOTE = new Set([',', ':', '}', ']']);

/** The JSON literals, and Python's spellings of them that models copy from Python-flavoured prompts. */
const LITERALS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};

/** Escapes whose character stands for itself; `\'` is Python's, the rest are JSON's. */
const ESCAPED_AS_ITSELF = new Set(['"', "'", '\\', '/']);

/**
 * The content of the first markdown code fence in `text` (` ``` ` or ` ```json `), or `text` itself when it has none.
 * An unclosed fence (the reply was cut off) runs to the end of the text.
 */
export function stripCodeFence(text: string): string {
  const start = text.indexOf('```');
  if (start < 0) return text.trim();
  const fenced = /^```[\w+-]*[ \t]*(?:\r?\n|(?=[{["']))([\s\S]*?)(?:```|$)/.exec(text.slice(start));
  return fenced ? (fenced[1] ?? '').trim() : text.trim();
}

/** Why the lenient reader stopped; caught in {@link parseLooseJson} and never seen outside this module. */
class LooseJsonError extends DurableAgentError {
  override readonly name = 'LooseJsonError';
}

/** `regex` (sticky) matched at `index` of `text`, or null; sticky matching keeps reading linear in the text. */
function matchAt(regex: RegExp, text: string, index: number): string | null {
  regex.lastIndex = index;
  return regex.exec(text)?.[0] ?? null;
}

const SPACE = /\s*/y;
const WORD = /[A-Za-z_$][\w$]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const BARE_KEY = /[A-Za-z_$][\w$]*|-?\d+(?:\.\d+)?/y;
const NEXT_VISIBLE = /\s*(\S?)/y;

/** A one-pass recursive reader over `text`, starting at `index`. */
class Reader {
  index = 0;

  /** `quotesInText`: a quote that is not followed by structure is part of the string (see {@link string}). */
  constructor(
    private readonly text: string,
    private readonly quotesInText: boolean,
  ) {}

  /** An error naming what was expected where, and what was there instead: the model can fix exactly that. */
  fail(expected: string): LooseJsonError {
    if (this.index >= this.text.length) {
      return new LooseJsonError(`the text ends before the JSON does (expected ${expected})`);
    }
    const found = this.text.slice(this.index, this.index + 12);
    return new LooseJsonError(`expected ${expected} at position ${this.index}, found ${JSON.stringify(found)}`);
  }

  private peek(): string | undefined {
    return this.text[this.index];
  }

  /** Skips whitespace and JavaScript comments, which some models put inside their JSON. */
  skipSpace(): void {
    for (;;) {
      this.index += matchAt(SPACE, this.text, this.index)?.length ?? 0;
      if (this.text.startsWith('//', this.index)) {
        const end = this.text.indexOf('\n', this.index);
        this.index = end < 0 ? this.text.length : end;
      } else if (this.text.startsWith('/*', this.index)) {
        const end = this.text.indexOf('*/', this.index + 2);
        this.index = end < 0 ? this.text.length : end + 2;
      } else {
        return;
      }
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new LooseJsonError(`the JSON is nested more than ${MAX_DEPTH} levels deep`);
    this.skipSpace();
    const char = this.peek();
    if (char === '{') return this.object(depth);
    if (char === '[') return this.array(depth);
    if (char === '"' || char === "'") return this.string(char);
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number();
    const word = matchAt(WORD, this.text, this.index);
    if (word !== null && Object.hasOwn(LITERALS, word)) {
      this.index += word.length;
      return LITERALS[word];
    }
    throw this.fail(word === null ? 'a JSON value' : 'a JSON value (text needs double quotes)');
  }

  private number(): number {
    const number = matchAt(NUMBER, this.text, this.index);
    if (number === null) throw this.fail('a number');
    this.index += number.length;
    return Number(number);
  }

  /**
   * A string in double or (Python) single quotes: JSON's escapes plus Python's `\'` and `\xHH`; an unknown escape
   * keeps its backslash (`"\d+"` meant a regex). With `quotesInText`, a quote not followed by `,` `:` `}` `]` or the
   * end is part of the text, so `'it's'` and `"say "hi" now"` read as the model meant them.
   */
  private string(quote: string): string {
    this.index += 1;
    let out = '';
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw this.fail(`the closing ${quote} of a string`);
      this.index += 1;
      if (char === '\\') out += this.escape();
      else if (char !== quote || (this.quotesInText && !this.closesString())) out += char;
      else return out;
    }
  }

  /** Whether the quote just read ends its string: what follows it (after spaces) is structure or the end. */
  private closesString(): boolean {
    NEXT_VISIBLE.lastIndex = this.index;
    const after = NEXT_VISIBLE.exec(this.text)?.[1] ?? '';
    return after === '' || AFTER_CLOSING_QUOTE.has(after);
  }

  /** One escape sequence, the backslash already read. */
  private escape(): string {
    const next = this.peek();
    this.index += 1;
    switch (next) {
      case undefined:
        throw this.fail('a character after \\');
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u':
      case 'x': {
        const length = next === 'u' ? 4 : 2;
        const hex = this.text.slice(this.index, this.index + length);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length)
          throw this.fail(`${length} hex digits after \\${next}`);
        this.index += length;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        return ESCAPED_AS_ITSELF.has(next) ? next : `\\${next}`;
    }
  }

  /** A key: quoted, or a bare identifier or number as JavaScript and Python allow. */
  private key(): string {
    const char = this.peek();
    if (char === '"' || char === "'") return this.string(char);
    const bare = matchAt(BARE_KEY, this.text, this.index);
    if (bare === null) throw this.fail('a property name in double quotes');
    this.index += bare.length;
    return bare;
  }

  private object(depth: number): Record<string, unknown> {
    this.index += 1;
    const result: Record<string, unknown> = {};
    for (;;) {
      // Also the trailing comma: `{"a": 1,}`.
      this.skipSpace();
      if (this.peek() === '}') {
        this.index += 1;
        return result;
      }
      const key = this.key();
      this.skipSpace();
      const separator = this.peek();
      // `=` reads keyword arguments, `tool(expression="2+2")`, as an object.
      if (separator !== ':' && separator !== '=') throw this.fail(`":" after the property name ${JSON.stringify(key)}`);
      this.index += 1;
      // defineProperty, as JSON.parse does: a "__proto__" key is data, never the object's prototype.
      Object.defineProperty(result, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipSpace();
      const next = this.peek();
      if (next === '}') {
        this.index += 1;
        return result;
      }
      if (next !== ',') throw this.fail(`"," or "}" after the value of ${JSON.stringify(key)}`);
      this.index += 1;
    }
  }

  private array(depth: number): unknown[] {
    this.index += 1;
    const result: unknown[] = [];
    for (;;) {
      this.skipSpace();
      if (this.peek() === ']') {
        this.index += 1;
        return result;
      }
      result.push(this.value(depth + 1));
      this.skipSpace();
      const next = this.peek();
      if (next === ']') {
        this.index += 1;
        return result;
      }
      if (next !== ',') throw this.fail(`"," or "]" after item ${result.length} of the list`);
      this.index += 1;
    }
  }
}

/** Reads the first value of `text`; an object or list may be followed by anything, a scalar by nothing. */
function readFirstValue(text: string, quotesInText: boolean): unknown {
  const reader = new Reader(text, quotesInText);
  const value = reader.value(0);
  reader.skipSpace();
  // After a balanced object or list the rest is prose ("I'll wait for the result."); after a scalar it is not:
  // `2+2` must not read as 2.
  if (reader.index < text.length && (typeof value !== 'object' || value === null)) {
    const rest = JSON.stringify(text.slice(reader.index, reader.index + 12));
    throw new LooseJsonError(`text follows the value at position ${reader.index} (${rest}); one value is expected`);
  }
  return value;
}

/**
 * Parses JSON leniently: a surrounding code fence, prose before the first `{` or after the first complete object or
 * list, Python dict literals (single quotes, True/False/None), trailing commas, bare keys and comments are accepted.
 * `repaired` is false only for text that is strict JSON as it stands (surrounding whitespace aside).
 */
export function parseLooseJson(text: string): LooseJsonResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'the text is empty' };
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown, repaired: false };
  } catch {
    // Not strict JSON: read it leniently below.
  }
  // A fence is looked for only outside an object: a string value may itself hold a fenced snippet.
  const body = /^[{[]/.test(trimmed) ? trimmed : stripCodeFence(trimmed);
  if (body === '') return { ok: false, error: 'the code block is empty' };
  const startsLikeJson = /^(?:[{["'\-\d]|(?:true|false|null|True|False|None)\b)/.test(body);
  // Prose before the value ("Here are the arguments: {...}"): start at the first object.
  const start = startsLikeJson ? 0 : body.indexOf('{');
  if (start < 0) return { ok: false, error: 'no JSON value found (expected an object such as {"key": "value"})' };
  const json = body.slice(start);
  const first = attempt(json, false);
  // Quotes inside the text are guessed only when the plain reading fails, and that reading's error is the one
  // reported: `{"a" 1}` lacks a colon, it is not an unterminated string.
  if (first.ok) return first;
  const second = attempt(json, true);
  return second.ok ? second : first;
}

function attempt(json: string, quotesInText: boolean): LooseJsonResult {
  try {
    return { ok: true, value: readFirstValue(json, quotesInText), repaired: true };
  } catch (error) {
    if (error instanceof LooseJsonError) return { ok: false, error: error.message };
    throw error;
  }
}
