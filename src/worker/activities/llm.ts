import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  CLARIFICATION_DESCRIPTION,
  CLARIFICATION_PARAMETERS,
  CLARIFICATION_TOOL,
  DELEGATE_TOOL,
  delegateDescription,
  delegateParameters,
  FINAL_ANSWER_DESCRIPTION,
  FINAL_ANSWER_TOOL,
  finalAnswerParameters,
  readNativeReply,
  readRefusal,
  readTextReply,
  splitReasoning,
  textProtocolInstructions,
  type CallModelInput,
  type ChatMessage,
  type ModelReply,
} from '../../shared/protocol';
import { withOutputCheck } from './output-check';
import { runAheadInActivity } from './run-ahead';
import type { ModelSettings } from '../../shared/model-settings';

/** How text mode has always described the clarification action (kept: text-mode prompts are what models learned). */
const CLARIFICATION_TEXT_DESCRIPTION =
  'ask the user a question when the task is ambiguous; the answer comes back as the observation.';
import { toolParametersSchema, renderToolCatalog } from '../tools/catalog';
import type { AnyToolDefinition } from '../tools/define-tool';
import type { ToolRegistry } from '../tools/registry';
import { createChatCompletion } from './chat-completion';
import { settleArguments } from './call-arguments';
import { MAX_REPLY_CHARS } from './completion-reader';
import { resolvePrompt, type PromptCache } from './prompt-cache';
import type { ModelLatency } from '../model-latency';

/** What the model activity needs from the worker process. */
export interface ModelDependencies {
  openai: OpenAI;
  /** Used when a run's config names no model. */
  defaultModel: string;
  registry: ToolRegistry;
  promptCache: PromptCache;
  /** Where each answered call's time goes: new runs' first calls are placed by it (see model-latency.ts). */
  latency?: ModelLatency;
}

/** A model call's input with its prompt whole, as the request is built from it. */
export type ResolvedModelInput = Omit<CallModelInput, 'messages' | 'prompt'> & { messages: ChatMessage[] };

function providerTool(name: string, description: string, parameters: Record<string, unknown>): ChatCompletionTool {
  return { type: 'function', function: { name, description, parameters } };
}

/** The text-mode catalog entry of a built-in action. */
function catalogEntry(name: string, description: string, parameters: Record<string, unknown>): string {
  return `- ${name}: ${description}\n  arguments (JSON Schema): ${JSON.stringify(parameters)}`;
}

function toProviderTool(tool: AnyToolDefinition): ChatCompletionTool {
  return providerTool(tool.name, tool.description, toolParametersSchema(tool));
}

function toProviderMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', content: message.content, tool_call_id: message.toolCallId };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.argumentsText },
              })),
            }
          : {}),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

/** Appends text to the leading system message (or adds one). */
function withSystemSuffix(messages: ChatCompletionMessageParam[], suffix: string): ChatCompletionMessageParam[] {
  if (suffix === '') return messages;
  const [first, ...rest] = messages;
  if (first?.role !== 'system') return [{ role: 'system', content: suffix.trim() }, ...messages];
  return [{ role: 'system', content: `${typeof first.content === 'string' ? first.content : ''}${suffix}` }, ...rest];
}

/**
 * The request fields every call may carry, each only when set, so endpoints that do not know a field never see it.
 * max_tokens rather than max_completion_tokens: nearly every OpenAI-compatible server knows it.
 */
function samplingParams(input: ResolvedModelInput): Partial<ChatCompletionCreateParamsNonStreaming> {
  const { temperature, reasoningEffort } = input.settings ?? {};
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(reasoningEffort !== undefined ? { reasoning_effort: reasoningEffort } : {}),
    ...(input.maxTokens !== undefined ? { max_tokens: input.maxTokens } : {}),
  };
}

/** The fields that steer tool calls: sent only with tools, since OpenAI refuses both in a request without any. */
function toolParams(settings: ModelSettings | undefined): Partial<ChatCompletionCreateParamsNonStreaming> {
  const { toolChoice, parallelToolCalls } = settings ?? {};
  return {
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallel_tool_calls: parallelToolCalls } : {}),
  };
}

/** Builds the chat-completions request: native mode offers tools, text mode teaches the protocol in the prompt. */
export function buildModelRequest(
  input: ResolvedModelInput,
  model: string,
  tools: readonly AnyToolDefinition[],
): ChatCompletionCreateParamsNonStreaming {
  const shape = input.outputSchema
    ? `\n\nThe final answer must be one JSON object matching this JSON Schema: ${JSON.stringify(input.outputSchema)}`
    : '';
  const messages = withSystemSuffix(input.messages.map(toProviderMessage), shape);
  const subagents = input.subagents && Object.keys(input.subagents).length > 0 ? input.subagents : undefined;
  const actionsOffered = input.tools.length > 0 || input.allowClarification === true || subagents !== undefined;
  const sampling = samplingParams(input);
  if (input.mode === 'native') {
    const builtins = [
      providerTool(FINAL_ANSWER_TOOL, FINAL_ANSWER_DESCRIPTION, finalAnswerParameters(input.outputSchema)),
      ...(input.allowClarification
        ? [providerTool(CLARIFICATION_TOOL, CLARIFICATION_DESCRIPTION, CLARIFICATION_PARAMETERS)]
        : []),
      ...(subagents
        ? [providerTool(DELEGATE_TOOL, delegateDescription(subagents), delegateParameters(subagents))]
        : []),
    ];
    const offered = actionsOffered ? [...tools.map(toProviderTool), ...builtins] : undefined;
    return { model, messages, ...(offered ? { tools: offered, ...toolParams(input.settings) } : {}), ...sampling };
  }
  const entries = [
    renderToolCatalog(tools),
    ...(input.allowClarification
      ? [
          catalogEntry(CLARIFICATION_TOOL, CLARIFICATION_TEXT_DESCRIPTION, {
            type: 'object',
            properties: { question: { type: 'string' } },
            required: ['question'],
          }),
        ]
      : []),
    ...(subagents ? [catalogEntry(DELEGATE_TOOL, delegateDescription(subagents), delegateParameters(subagents))] : []),
  ];
  const catalog = entries.join('\n');
  const protocol = actionsOffered
    ? `${catalog}\n\n${textProtocolInstructions(input.tags)}`
    : 'Answer now without tools.';
  return {
    model,
    messages: withSystemSuffix(messages, `\n\n${protocol}`),
    stop: [`\n${input.tags.observation}`],
    ...sampling,
  };
}

/** An oversized reply, refused once as feedback the model can act on; only a short preview is kept. */
function oversized(size: number, content: string, usage: ModelReply['usage']): ModelReply {
  const preview = `${content.slice(0, 2000)}… [${size - Math.min(content.length, 2000)} more characters not kept]`;
  return {
    type: 'malformed',
    problem: `Your reply was ${size} characters; replies over ${MAX_REPLY_CHARS} characters are not read. Reply more briefly.`,
    thought: '',
    usage,
    assistantMessage: { role: 'assistant', content: preview },
  };
}

/** Creates the `callModel` activity: one chat completion, parsed and classified; Temporal owns retries. */
export function createCallModel(deps: ModelDependencies): (input: CallModelInput) => Promise<ModelReply> {
  return async function callModel(input: CallModelInput): Promise<ModelReply> {
    // The whole call, tools run ahead included: as a local activity, all of it holds the workflow task.
    const startedMs = Date.now();
    const model = input.model ?? deps.defaultModel;
    try {
      const messages = await resolvePrompt(deps.promptCache, input);
      const checked = withOutputCheck(await readReply(deps, { ...input, messages }), input.outputSchema);
      // The attempt is the engine's (local activities too): a retried call is a paid request made again.
      const { attempt } = Context.current().info;
      const reply = attempt > 1 ? { ...checked, attempts: attempt } : checked;
      const done = input.runAhead ? await runAheadInActivity(deps.registry, reply, input.runAhead) : reply;
      deps.latency?.record(model, Date.now() - startedMs);
      return done;
    } catch (error) {
      deps.latency?.recordFailure(model);
      throw error;
    }
  };
}

/** One chat completion, parsed and classified. */
async function readReply(deps: ModelDependencies, input: ResolvedModelInput): Promise<ModelReply> {
  const model = input.model ?? deps.defaultModel;
  // The model must be offered the same MCP tools the run listed, even on a worker that has not listed them yet.
  const missing = input.tools.filter((name) => !deps.registry.has(name));
  if (missing.length > 0) await deps.registry.refresh(missing);
  const { tools } = deps.registry.resolve(input.tools);
  const request = buildModelRequest(input, model, tools);
  const { reply: completion, usage } = await createChatCompletion(deps.openai, request, input.stream);
  const { content, reasoning, toolCalls } = completion;
  // Reasoning is not counted, wherever the server put it: the reply keeps only its end (MAX_THOUGHT_CHARS).
  const size =
    splitReasoning(content).text.length +
    toolCalls.reduce((sum, call) => sum + call.name.length + call.argumentsText.length, 0);
  if (size > MAX_REPLY_CHARS) return oversized(size, content, usage);
  // A refusal ends the run with its words: nothing else in the reply is acted on, and asking again only repeats it.
  if (completion.refusal !== '' && toolCalls.length === 0) return readRefusal(completion.refusal, usage, reasoning);
  const cut = completion.finishReason === 'length';
  // The names the request offered natively: a call written in the text must name one of them to count as a call.
  const offered = new Set((request.tools ?? []).map((tool) => (tool.type === 'function' ? tool.function.name : '')));
  const reply = settleArguments(
    input.mode === 'native'
      ? readNativeReply(content, toolCalls, usage, reasoning, request.tools ? offered : undefined)
      : readTextReply(content, input.tags, completion.id || 'chatcmpl-unknown', usage, reasoning),
    tools,
  );
  // A reply the token limit cut off is not an answer, however it reads, and a call cut off mid-arguments is not a
  // call: the model is told, not believed. Calls whose arguments did parse were complete and stand.
  const brokenCall = reply.type === 'tool_calls' && reply.calls.some((call) => call.parseError !== undefined);
  if (cut && (reply.type !== 'tool_calls' || brokenCall)) {
    const limit = input.maxTokens !== undefined ? ` of ${input.maxTokens} tokens` : '';
    const problem = `Your reply was cut off at the token limit${limit}; reply more briefly.`;
    return { thought: reply.thought, usage, assistantMessage: reply.assistantMessage, type: 'malformed', problem };
  }
  return reply;
}
