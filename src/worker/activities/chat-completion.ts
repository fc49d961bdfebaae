import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { TokenUsage } from '../../shared/cost';
import { withHeartbeats } from './heartbeat';
import { readCompletion, type CompletionReply } from './completion-reader';
import { classifyModelError, type ModelEndpoint } from './model-errors';
import { deltaSender, streamCompletion } from './streaming';
import { readUsage } from './usage';
import { errorMessage } from '../../shared/errors';

/** A chat completion as the loop reads it, and its token usage as the run counts it. */
export interface ChatCompletionResult {
  reply: CompletionReply;
  usage: TokenUsage;
}

// Resolved through the global provider at each span: a no-op until a worker registers one (see createTracing).
const tracer = trace.getTracer('durable-react-agent');

/** Where the request goes, as OpenTelemetry's `server.*` attributes; nothing when the base URL does not parse. */
function serverAttributes(baseURL: string): Attributes {
  try {
    const url = new URL(baseURL);
    const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
    return { 'server.address': url.hostname, 'server.port': port };
  } catch {
    return {};
  }
}

function recordFailure(span: Span, error: unknown): void {
  // The classified failure's type (e.g. a rate limit) groups errors better than the class name does.
  const type = error instanceof ApplicationFailure && error.type ? error.type : (error as Error | undefined)?.name;
  span.setAttribute('error.type', type ?? 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}

/**
 * One chat completion as every model activity makes it: cancellable through heartbeats, errors classified once (the
 * message redacted), and traced as a `chat <model>` client span under the running activity's span, with attributes
 * from OpenTelemetry's GenAI semantic conventions. Token counts are the usage the run counts: the endpoint's report,
 * or the character estimate when it sent none (the reply's estimate counts its whitespace, as the model generated it).
 */
export async function createChatCompletion(
  openai: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  /** Stream the reply, signalling its text to the workflow for this iteration (config `stream`). */
  stream?: { iteration: number },
): Promise<ChatCompletionResult> {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': request.model,
    ...(typeof request.max_tokens === 'number' ? { 'gen_ai.request.max_tokens': request.max_tokens } : {}),
    ...serverAttributes(openai.baseURL),
  };
  return tracer.startActiveSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const endpoint: ModelEndpoint = { baseURL: openai.baseURL, apiKey: openai.apiKey, model: request.model };
      const reply = await withHeartbeats(async (signal) => {
        const deltas = stream ? deltaSender(stream.iteration) : undefined;
        try {
          // The body is read as unknown JSON: servers differ from the client's types in every field.
          const body: unknown = deltas
            ? await streamCompletion(openai, request, signal, (text) => deltas.push(text))
            : await openai.chat.completions.create(request, { signal });
          return readCompletion(body, endpoint);
        } catch (error) {
          throw classifyModelError(error, endpoint);
        } finally {
          await deltas?.close();
        }
      });
      const replyChars = reply.content.length + reply.reasoning.length;
      const usage = readUsage(reply.usage, JSON.stringify(request.messages).length, replyChars);
      span.setAttributes({
        ...(reply.id !== '' ? { 'gen_ai.response.id': reply.id } : {}),
        ...(reply.model !== undefined ? { 'gen_ai.response.model': reply.model } : {}),
        // OpenAI-compatible servers are not all complete: only what the reply carries is recorded.
        ...(reply.finishReason !== null ? { 'gen_ai.response.finish_reasons': [reply.finishReason] } : {}),
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
      });
      return { reply, usage };
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}
