/**
 * What a model server sent, read without trusting its shape: the reply readers and the error-body reader both start
 * here, so each reads objects and text the same way.
 */

/** A JSON object as a server sent it, unchecked. */
export type Json = Record<string, unknown>;
/** Whether a value is a JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A value that should be text, or '' when it is anything else. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');
