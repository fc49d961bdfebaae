import type OpenAI from 'openai';
import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../testing/scripted-turn';
import { promptFingerprint } from './behaviour';

/** Another OpenAI-compatible endpoint to ask once the current code's prompts leave the recording. */
export interface FallbackModel {
  openai: OpenAI;
  model: string;
}

/** Fields the scripted server adds to a request it records; they are not the request's. */
const RECORDING_FIELDS = ['authorization', 'receivedAt', 'respondedAt'];

/**
 * Serves a recording's model answers to the current code, call by call. Each prompt is compared with the recorded
 * one (where the recording holds it): while they agree, the recorded answer is what the model said to that prompt.
 * From the first prompt that differs, a fallback endpoint (if given) answers instead, since the recorded answers
 * were given to other prompts; without one, the recorded answers go on being served in order, so the rest of the
 * run still shows what the current code does with them, and the changed prompt is reported.
 */
export class ReplayModel {
  /** Fingerprints of the prompts the current code sent, in order. */
  readonly prompts: string[] = [];
  /** What was answered, call by call: an accepted baseline serves these again. */
  readonly served: ScriptedTurn[] = [];
  /** Model calls the fallback answered. */
  live = 0;
  private diverged = false;

  constructor(
    private readonly turns: readonly ScriptedTurn[],
    private readonly expected: ReadonlyArray<string | null>,
    private readonly fallback?: FallbackModel,
  ) {}

  readonly respond: ScriptedResponder = async (request, index) => {
    const turn = await this.answer(request, index);
    this.served[index] = turn;
    return turn;
  };

  private async answer(request: RecordedRequest, index: number): Promise<ScriptedTurn> {
    const fingerprint = promptFingerprint(request.messages);
    this.prompts.push(fingerprint);
    const expected = this.expected[index];
    if (expected !== undefined && expected !== null && expected !== fingerprint) this.diverged = true;
    if (this.fallback && (this.diverged || index >= this.turns.length)) {
      this.diverged = true;
      this.live += 1;
      return ask(this.fallback, request);
    }
    const turn = this.turns[index];
    if (turn) return turn;
    return {
      status: 400,
      errorMessage:
        `replay-check: the recording has no answer for model call ${index + 1} (it has ${this.turns.length}); ` +
        'give --model-url to let a model answer the calls the recording does not cover',
    };
  }
}

/** Asks the fallback endpoint the same request and turns its completion into what the scripted server sends. */
async function ask(fallback: FallbackModel, request: RecordedRequest): Promise<ScriptedTurn> {
  const body: Record<string, unknown> = { ...request, model: fallback.model, stream: false };
  for (const field of RECORDING_FIELDS) delete body[field];
  delete body.stream_options;
  try {
    const completion = await fallback.openai.chat.completions.create(
      body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    );
    const message = completion.choices[0]?.message;
    const usage = completion.usage;
    return {
      content: message?.content ?? '',
      toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
        call.type === 'function'
          ? [{ id: call.id, name: call.function.name, rawArguments: call.function.arguments }]
          : [],
      ),
      ...(usage
        ? {
            usage: {
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
              totalTokens: usage.total_tokens,
            },
          }
        : {}),
    };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return {
      status: typeof status === 'number' ? status : 502,
      errorMessage: `replay-check's fallback model failed: ${(error as Error).message}`,
    };
  }
}
