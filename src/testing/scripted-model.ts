import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listen } from '../common/http-listen';
import { CHARS_PER_TOKEN } from '../shared/observation';
import { isTextModeRequest, mistralCallId, refusedRequest, shapeTurn, type Personality } from './personalities';
import type { RecordedRequest, ScriptedRawResponse, ScriptedResponder, ScriptedTurn } from './scripted-turn';
import { sendEvents, sendStream, type CompletionBody } from './scripted-stream';

export type {
  RecordedRequest,
  ScriptedRawResponse,
  ScriptedResponder,
  ScriptedToolCall,
  ScriptedTurn,
} from './scripted-turn';

/** How one script is played (see `ScriptedModelServer.script`). */
export interface ScriptOptions {
  /** The shape of a real server's replies to give this script's turns (default: the server's own default). */
  personality?: Personality;
  /** Where `sloppy-text`'s cycle of reply forms starts, so scripts of one suite get different forms (default 0). */
  seed?: number;
}

/**
 * A scripted OpenAI-compatible chat-completions server on loopback. Scripts are keyed by the request's `model`, so
 * concurrent runs each follow their own script; every request is recorded. Used by every test and by the demo.
 */
export interface ScriptedModelServer {
  /** Base URL to give the `openai` client, e.g. http://127.0.0.1:40123/v1. */
  readonly baseURL: string;
  /**
   * Registers the script for `model`: a list of turns played in order, or a responder function; `options` says which
   * personality replies (default: the server's).
   */
  script(model: string, turns: readonly ScriptedTurn[] | ScriptedResponder, options?: ScriptOptions): void;
  /** The requests received for `model`, in order. */
  requests(model: string): RecordedRequest[];
  close(): Promise<void>;
}

const tokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

function completion(
  model: string,
  index: number,
  turn: ScriptedTurn,
  request: RecordedRequest,
  play: Required<ScriptOptions>,
): CompletionBody {
  const shaped = shapeTurn(turn, play.personality, { index, seed: play.seed, textMode: isTextModeRequest(request) });
  const madeUpId = (position: number): string =>
    play.personality === 'mistral' ? mistralCallId(index, position) : `call_${index}_${position}`;
  let toolCalls = shaped.toolCalls.map((call, position) => ({
    id: call.id ?? madeUpId(position),
    type: 'function',
    function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.args ?? {}) },
  }));
  let content = shaped.content;
  const { reasoning } = shaped;
  const promptTokens = turn.usage?.promptTokens ?? tokens(JSON.stringify(request.messages).length);
  // Reasoning is generated like any other text, so it counts (and is billed) as completion tokens.
  const generated = (): number =>
    tokens(
      (content ?? '').length +
        (reasoning ?? '').length +
        JSON.stringify(toolCalls).length * Number(toolCalls.length > 0),
    );
  // Like a real server, a reply longer than max_tokens is cut there: the tool calls never finish, the text stops.
  const limit = typeof request.max_tokens === 'number' ? request.max_tokens : undefined;
  const cut = limit !== undefined && turn.usage?.completionTokens === undefined && generated() > limit;
  if (cut) {
    toolCalls = [];
    content = (content ?? '').slice(0, limit * CHARS_PER_TOKEN);
  }
  const completionTokens = turn.usage?.completionTokens ?? generated();
  return {
    id: `chatcmpl-${model}-${index}`,
    object: 'chat.completion',
    created: 1_700_000_000 + index,
    model,
    choices: [
      {
        index: 0,
        finish_reason: cut ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: turn.refusal !== undefined ? null : content,
          ...(turn.refusal !== undefined ? { refusal: turn.refusal } : {}),
          ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    ...(turn.omitUsage
      ? {}
      : {
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: turn.usage?.totalTokens ?? promptTokens + completionTokens,
            ...(turn.usage?.cachedPromptTokens !== undefined
              ? { prompt_tokens_details: { cached_tokens: turn.usage.cachedPromptTokens } }
              : {}),
          },
        }),
  };
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Sends a raw turn exactly as scripted. */
async function sendRaw(response: ServerResponse, raw: ScriptedRawResponse, turn: ScriptedTurn): Promise<void> {
  if (response.destroyed) return;
  switch (raw.kind) {
    case 'json':
      return send(response, raw.status ?? 200, raw.body, raw.headers);
    case 'text':
      response.writeHead(raw.status ?? 200, { 'content-type': raw.contentType });
      response.end(raw.body);
      return;
    case 'sse':
      return sendEvents(response, raw.events, turn.chunkDelayMs);
  }
}

function sendError(response: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  send(response, status, { error: { message, type: 'scripted_error', code: String(status) } }, headers);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Options for {@link startScriptedModel}; tests need none. */
export interface ScriptedModelOptions {
  /** Keep every request for `requests()` (default true). Benchmarks turn it off so memory stays flat. */
  record?: boolean;
  /** The script for a model nobody registered, e.g. derived from its name; undefined answers 404 as usual. */
  scriptFor?: (model: string) => readonly ScriptedTurn[] | ScriptedResponder | undefined;
  /** The personality of every script that does not name its own (default `plain`). */
  personality?: Personality;
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModelServer> {
  const { record = true, scriptFor, personality = 'plain' } = options;
  const scripts = new Map<string, readonly ScriptedTurn[] | ScriptedResponder>();
  const plays = new Map<string, Required<ScriptOptions>>();
  const recorded = new Map<string, RecordedRequest[]>();
  const counts = new Map<string, number>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Stamped on arrival, before the body is read: a large prompt read in several turns must not make it look later.
    const receivedAt = Date.now();
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      return sendError(
        response,
        404,
        `The scripted model serves POST /v1/chat/completions, not ${request.method} ${request.url}`,
      );
    }
    let body: RecordedRequest;
    try {
      body = {
        ...(JSON.parse(await readBody(request)) as RecordedRequest),
        authorization: request.headers.authorization,
        receivedAt,
      };
    } catch {
      return sendError(response, 400, 'Request body is not JSON');
    }
    const script = scripts.get(body.model) ?? scriptFor?.(body.model);
    if (!script) return sendError(response, 404, `The scripted model has no script for model "${body.model}"`);
    const index = counts.get(body.model) ?? 0;
    counts.set(body.model, index + 1);
    if (record) {
      const seen = recorded.get(body.model) ?? [];
      seen.push(body);
      recorded.set(body.model, seen);
    }
    const turn = typeof script === 'function' ? await script(body, index) : script[index];
    if (!turn) {
      return sendError(
        response,
        400,
        `The script for model "${body.model}" has no response ${index + 1} (it has ${script.length})`,
      );
    }
    if (turn.delayMs) {
      // The timer is cleared when the client gives up, so a scripted hang never keeps the process alive.
      let timer: NodeJS.Timeout | undefined;
      const closed = new Promise<void>((resolve) => response.on('close', resolve));
      await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, turn.delayMs))), closed]);
      clearTimeout(timer);
    }
    if (turn.raw) {
      await sendRaw(response, turn.raw, turn);
      body.respondedAt = Date.now();
      return;
    }
    if (turn.status !== undefined) {
      const headers = turn.retryAfter === undefined ? undefined : { 'retry-after': turn.retryAfter };
      return sendError(response, turn.status, turn.errorMessage ?? `scripted fault ${turn.status}`, headers);
    }
    const play = plays.get(body.model) ?? { personality, seed: 0 };
    const refused = refusedRequest(play.personality, body);
    if (refused) return send(response, refused.status, refused.body);
    const reply = completion(body.model, index, turn, body, play);
    if (body.stream === true) {
      const options = body.stream_options as { include_usage?: boolean } | undefined;
      await sendStream(response, reply, turn, options?.include_usage === true);
    } else {
      send(response, 200, reply);
    }
    body.respondedAt = Date.now();
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendError(response, 500, String(error)));
  });
  // Pooled clients (undici keeps an idle socket 4 s, others longer) must never reuse a socket the server is closing at
  // that moment ("other side closed"): idle sockets stay open longer than any client keeps them.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const { url, close } = await listen(server, '127.0.0.1', 0);

  return {
    baseURL: `${url}/v1`,
    script: (model, turns, scriptOptions = {}) => {
      scripts.set(model, turns);
      plays.set(model, { personality: scriptOptions.personality ?? personality, seed: scriptOptions.seed ?? 0 });
      recorded.delete(model);
      counts.delete(model);
    },
    // A copy: callers compare what they got earlier with what came after.
    requests: (model) => [...(recorded.get(model) ?? [])],
    close,
  };
}
