/** A UTF-16 surrogate with no partner: not text, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text with every lone surrogate replaced by U+FFFD. Protocol-buffer strings (a failure's message and stack) must be
 * valid UTF-8: a tool's error text carrying one made the worker fail to encode its completion and exit.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** The first `maxChars` characters of a text, one fewer when the cut would split a surrogate pair. */
export function headOf(text: string, maxChars: number): string {
  const head = text.slice(0, maxChars);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

/** A text cut to `maxChars` with `…` marking the cut (never inside a surrogate pair); a shorter one as it is. */
export function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${headOf(text, maxChars)}…` : text;
}

/** Longest stretch of model or tool text one line shows (the CLI's trace, the UI's details). */
export const MAX_LINE = 300;

/** Text on one line (whitespace runs made one space), cut to {@link MAX_LINE} characters. */
export function clipLine(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim(), MAX_LINE);
}
