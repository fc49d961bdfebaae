import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  CLARIFICATION_TOOL,
  DELEGATE_TOOL,
  FINAL_ANSWER_TOOL,
  type CallModelInput,
  type ChatMessage,
  type ModelReply,
} from '../../shared/protocol/model-io';
import { toolParametersSchema, renderToolCatalog } from '../tools/catalog';
import type { AnyToolDefinition } from '../tools/define-tool';
import type { ToolRegistry } from '../tools/registry';
import { withHeartbeats } from './heartbeat';
import { classifyModelError } from './model-errors';
import { readNativeReply, readTextReply, readUsage } from './model-reply';
import { textProtocolInstructions } from '../../shared/protocol/text-format';

/** What the model activity needs from the worker process. */
export interface ModelDependencies {
  openai: OpenAI;
  /** Used when a run's config names no model. */
  defaultModel: string;
  registry: ToolRegistry;
}

/** The built-in final_answer tool; with an output schema its `answer` is that structured object. */
function finalAnswerTool(outputSchema: Record<string, unknown> | undefined): ChatCompletionTool {
  return {
    type: 'function',
    function: {
      name: FINAL_ANSWER_TOOL,
      description: 'Give the final answer to the task and stop.',
      parameters: {
        type: 'object',
        properties: {
          answer: outputSchema ?? { type: 'string', description: 'The final answer' },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Optional: how sure you are, 0 to 1' },
        },
        required: ['answer'],
      },
    },
  };
}

const clarificationTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: CLARIFICATION_TOOL,
    description: 'Ask the user a question when the task is ambiguous or needs information only they have. The run waits for the answer.',
    parameters: {
      type: 'object',
      properties: { question: { type: 'string', description: 'One clear question for the user' } },
      required: ['question'],
    },
  },
};

/** The text-mode catalog entry of the clarification action. */
const CLARIFICATION_ENTRY = `- ${CLARIFICATION_TOOL}: ask the user a question when the task is ambiguous; the answer comes back as the observation.
  arguments (JSON Schema): {"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`;

function delegateParameters(subagents: Record<string, string>): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      agent: { type: 'string', enum: Object.keys(subagents), description: 'Which subagent' },
      task: { type: 'string', description: 'The task, self-contained: the subagent sees nothing else' },
    },
    required: ['agent', 'task'],
  };
}

function delegateDescription(subagents: Record<string, string>): string {
  const list = Object.entries(subagents).map(([name, description]) => `${name} (${description})`).join('; ');
  return `Hand a self-contained task to a subagent and get its answer. Subagents: ${list}.`;
}

function delegateTool(subagents: Record<string, string>): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: DELEGATE_TOOL, description: delegateDescription(subagents), parameters: delegateParameters(subagents) },
  };
}

function toProviderTool(tool: AnyToolDefinition): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toolParametersSchema(tool) },
  };
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

/** Builds the chat-completions request: native mode offers tools, text mode teaches the protocol in the prompt. */
export function buildModelRequest(
  input: CallModelInput,
  model: string,
  tools: readonly AnyToolDefinition[],
): ChatCompletionCreateParamsNonStreaming {
  const shape = input.outputSchema
    ? `\n\nThe final answer must be one JSON object matching this JSON Schema: ${JSON.stringify(input.outputSchema)}`
    : '';
  const messages = withSystemSuffix(input.messages.map(toProviderMessage), shape);
  const subagents = input.subagents && Object.keys(input.subagents).length > 0 ? input.subagents : undefined;
  const actionsOffered = input.tools.length > 0 || input.allowClarification === true || subagents !== undefined;
  if (input.mode === 'native') {
    const builtins = [
      finalAnswerTool(input.outputSchema),
      ...(input.allowClarification ? [clarificationTool] : []),
      ...(subagents ? [delegateTool(subagents)] : []),
    ];
    const offered = actionsOffered ? [...tools.map(toProviderTool), ...builtins] : undefined;
    return { model, messages, ...(offered ? { tools: offered } : {}) };
  }
  const delegateEntry = subagents
    ? `\n- ${DELEGATE_TOOL}: ${delegateDescription(subagents)}\n  arguments (JSON Schema): ${JSON.stringify(delegateParameters(subagents))}`
    : '';
  const catalog = `${renderToolCatalog(tools)}${input.allowClarification ? `\n${CLARIFICATION_ENTRY}` : ''}${delegateEntry}`;
  const protocol = actionsOffered ? `${catalog}\n\n${textProtocolInstructions(input.tags)}` : 'Answer now without tools.';
  return { model, messages: withSystemSuffix(messages, `\n\n${protocol}`), stop: [`\n${input.tags.observation}`] };
}

/** Creates the `callModel` activity: one chat completion, parsed and classified; Temporal owns retries. */
export function createCallModel(deps: ModelDependencies): (input: CallModelInput) => Promise<ModelReply> {
  return async function callModel(input: CallModelInput): Promise<ModelReply> {
    const model = input.model ?? deps.defaultModel;
    const { tools } = deps.registry.resolve(input.tools);
    const request = buildModelRequest(input, model, tools);
    const completion = await withHeartbeats(async (signal) => {
      try {
        return await deps.openai.chat.completions.create(request, { signal });
      } catch (error) {
        throw classifyModelError(error, { baseURL: deps.openai.baseURL, model });
      }
    });
    const message = completion.choices[0]?.message;
    const content = message?.content ?? '';
    const toolCalls = (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, argumentsText: call.function.arguments }] : [],
    );
    const promptChars = JSON.stringify(request.messages).length;
    const usage = readUsage(completion, promptChars, content.length);
    return input.mode === 'native'
      ? readNativeReply(content, toolCalls, usage)
      : readTextReply(content, input.tags, completion.id, usage);
  };
}
