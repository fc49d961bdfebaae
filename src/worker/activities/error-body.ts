import { isJsonObject, textOf, type Json } from './server-json';
import { clip } from '../../shared/well-formed';

/**
 * Error bodies as OpenAI-compatible servers really send them, read into the one shape the `openai` client and the
 * classifier understand: OpenAI's `error` object with a `message`. The client reads only a body's `error` field, so
 * every other shape lost its words ("400 status code (no body)") and with them what the error was: a prompt over
 * the context window that could have been compacted failed the run instead.
 */

/** Longest error message kept from a body; a proxy's page can be megabytes. */
const MAX_MESSAGE_CHARS = 1_000;

/** What an error body says, as an OpenAI `error` object, and the wait it asks for (Google's `RetryInfo`). */
export interface ErrorBody {
  error: Json;
  retryAfterMs?: number;
}

const clipMessage = (text: string): string => clip(text, MAX_MESSAGE_CHARS);

/** FastAPI's `detail`: a sentence, or a validation error's list of `{loc, msg}`. */
function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return JSON.stringify(detail) ?? '';
  return detail
    .map((item) => {
      if (!isJsonObject(item)) return String(item);
      const where = Array.isArray(item.loc) ? `${item.loc.join('.')}: ` : '';
      return `${where}${textOf(item.msg) || JSON.stringify(item)}`;
    })
    .join('; ');
}

/**
 * The error object of a JSON body in any of the known shapes, or undefined when the body is not one: OpenAI's
 * `{error: {…}}` (or `{error: "…"}`), Gemini's array of them, vLLM's flat `{object: "error", message}`, FastAPI's
 * `{detail}`, and a bare `{message}`.
 */
export function errorObjectOf(body: unknown): Json | undefined {
  if (Array.isArray(body)) return body.length > 0 ? errorObjectOf(body[0]) : undefined;
  if (!isJsonObject(body)) return undefined;
  const { error } = body;
  if (isJsonObject(error)) {
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error.message ?? error);
    return { ...error, message: clipMessage(message) };
  }
  if (typeof error === 'string' && error !== '') return { ...body, message: clipMessage(error), error: undefined };
  if (body.detail !== undefined) return { message: clipMessage(detailText(body.detail)) };
  if (body.message !== undefined) {
    const message = typeof body.message === 'string' ? body.message : JSON.stringify(body.message);
    return { ...body, message: clipMessage(message) };
  }
  return undefined;
}

/** What an HTML page is about: its title, else its text without tags. */
function pageText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim();
  const text = (title ?? html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<[^>]+>/gi, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return `an HTML page${text ? ` ("${clipMessage(text).slice(0, 200)}")` : ''}`;
}

/** Google's `RetryInfo` detail (`"retryDelay": "26s"`), in milliseconds. */
function retryDelayOf(error: Json): number | undefined {
  const details = Array.isArray(error.details) ? error.details : [];
  for (const detail of details) {
    const delay = isJsonObject(detail) ? /^(\d+(?:\.\d+)?)s$/.exec(textOf(detail.retryDelay)) : null;
    if (delay) return Math.round(Number(delay[1]) * 1000);
  }
  return undefined;
}

/** Reads an error response's body, whatever its shape: JSON of any known form, plain text or an HTML page. */
export function readErrorBody(text: string, contentType: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = errorObjectOf(parsed);
  if (error) {
    const retryAfterMs = retryDelayOf(error);
    return { error, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  if (parsed !== undefined && typeof parsed !== 'string')
    return { error: { message: clipMessage(JSON.stringify(parsed)) } };
  const body = typeof parsed === 'string' ? parsed : text.trim();
  if (body === '') return { error: { message: '(an empty body)' } };
  const html = contentType.includes('html') || /^<(?:!doctype|html|head|body)\b/i.test(body);
  return { error: { message: html ? pageText(body) : clipMessage(body) } };
}
