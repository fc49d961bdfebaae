export { clipLine } from '../shared/well-formed';

/** C0 controls but the newline, DEL, and C1 controls: what would drive a terminal rather than show on it. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text for the operator's terminal: control characters as visible escapes (`\x1b`). Model and tool text is the
 * model's or a remote server's: raw, an escape sequence could clear the screen, retitle the window, or a `\r` rewrite
 * the run and call IDs printed before it, around an approval.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
