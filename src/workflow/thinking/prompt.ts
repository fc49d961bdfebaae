import type { ResolvedConfig } from '../../shared/config';
import {
  CLARIFICATION_TOOL,
  DELEGATE_TOOL,
  renderArguments,
  renderTextStep,
  tagsOf,
  type ChatMessage,
  type ModelToolCall,
  type TextTags,
  visibleThought,
} from '../../shared/protocol';
import type { ReActStep } from '../../shared/types';

/** Heading of the running summary in prompts. */
export const CONVERSATION_SO_FAR = 'Conversation so far (a summary of the earlier steps):';

/** Groups steps by the model reply (iteration) that produced them, keeping order. */
function byIteration(steps: readonly ReActStep[]): ReActStep[][] {
  const groups: ReActStep[][] = [];
  for (const step of steps) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.iteration === step.iteration) last.push(step);
    else groups.push([step]);
  }
  return groups;
}

const WIRE_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A call ID made up for a call whose server gave none (or repeated one), derived from the run's own ID so every
 * prompt sends the same one: nine letters and digits, the form Mistral's API requires and OpenAI's accepts.
 */
function wireCallId(callId: string): string {
  // Two FNV-1a hashes with different offsets: 62^9 IDs, so two calls of one run practically never share one.
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let index = 0; index < callId.length; index++) {
    const code = callId.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x01000193 + 2) >>> 0;
  }
  let id = '';
  for (let position = 0; position < 9; position++) {
    const source = position % 2 === 0 ? a : b;
    id += WIRE_ID_ALPHABET[(source >>> (position * 3)) % 62];
  }
  return id;
}

/**
 * The ID a step's call goes back to the server with: the server's own, exactly, unless this prompt has sent it
 * already (a server that repeats IDs across replies), else one made up from the run's. Never the run's own ID
 * (`c3-1`), which Mistral refuses.
 */
type WireIds = (step: ReActStep, callId: string) => string;

function wireIds(): WireIds {
  const sent = new Set<string>();
  return (step, callId) => {
    const own = 'serverCallId' in step.action ? step.action.serverCallId : undefined;
    const id = own !== undefined && own !== '' && !sent.has(own) ? own : wireCallId(callId);
    sent.add(id);
    return id;
  };
}

/** A step as the call the model made: tools as themselves, a question as the built-in clarification action. */
function asCall(step: ReActStep, wireId: WireIds): ModelToolCall | null {
  const { action } = step;
  if (action.type === 'tool_call')
    return { id: wireId(step, action.callId), name: action.tool, argumentsText: renderArguments(action.args) };
  if (action.type === 'clarification') {
    const id = wireId(step, action.callId ?? `c${step.iteration}-1`);
    return { id, name: CLARIFICATION_TOOL, argumentsText: JSON.stringify({ question: action.question }) };
  }
  if (action.type === 'delegate') {
    const id = wireId(step, action.callId ?? `c${step.iteration}-1`);
    return { id, name: DELEGATE_TOOL, argumentsText: JSON.stringify({ agent: action.agent, task: action.task }) };
  }
  return null;
}

function nativeTurn(group: readonly ReActStep[], wireId: WireIds): ChatMessage[] {
  const calls = group.flatMap((step) => {
    const call = asCall(step, wireId);
    return call ? [{ step, call }] : [];
  });
  const assistant: ChatMessage = {
    role: 'assistant',
    // What the model wrote, not the reasoning it gave apart: reasoning servers ask clients not to send it back.
    content: group[0] ? visibleThought(group[0].thought, group[0].reasoningChars) : '',
    toolCalls: calls.map(({ call }) => call),
  };
  const results: ChatMessage[] = calls.map(({ step, call }) => ({
    role: 'tool',
    toolCallId: call.id,
    content: step.observation ?? '',
  }));
  return [assistant, ...results];
}

function textTurn(group: readonly ReActStep[], tags: TextTags): ChatMessage[] {
  return group.flatMap((step) => {
    const { reply, observation } = renderTextStep(step, tags);
    const messages: ChatMessage[] = [{ role: 'assistant', content: reply }];
    if (observation !== null) messages.push({ role: 'user', content: observation });
    return messages;
  });
}

/** Inputs of one prompt. */
export interface PromptInput {
  query: string;
  config: ResolvedConfig;
  /** The running summary of steps no longer shown one by one. */
  summary?: string | null;
  steps: readonly ReActStep[];
  /** Corrections for the model about its previous reply (invalid thought, malformed output). */
  feedback: readonly string[];
  /** Notes for the next thought, e.g. the critic's verdict. */
  notes?: readonly string[];
  /** A conversation's earlier turns, oldest first: shown as the user's messages and the agent's answers. */
  earlierTurns?: ReadonlyArray<{ user: string; assistant: string }>;
}

/**
 * The messages of the next model call: system prompt and thought template, the task, the scratchpad (every step
 * when `history.scratchpad` is on, else only the latest reply's steps) and any pending feedback.
 */
export function buildMessages(input: PromptInput): ChatMessage[] {
  const { config } = input;
  const groups = byIteration(input.steps);
  const visible = config.history.scratchpad ? groups : groups.slice(-1);
  const tags = tagsOf(config);
  const wireId = wireIds();
  const history = visible.flatMap((group) =>
    config.modelSettings.toolCalling === 'native' ? nativeTurn(group, wireId) : textTurn(group, tags),
  );
  const messages: ChatMessage[] = [
    { role: 'system', content: `${config.systemPrompt}\n\n${config.thoughts.prompt}` },
    ...(input.earlierTurns ?? []).flatMap((turn): ChatMessage[] => [
      { role: 'user', content: turn.user },
      { role: 'assistant', content: turn.assistant },
    ]),
    { role: 'user', content: input.query },
    ...(input.summary ? [{ role: 'user' as const, content: `${CONVERSATION_SO_FAR}\n${input.summary}` }] : []),
    ...history,
  ];
  for (const note of input.notes ?? []) messages.push({ role: 'user', content: note });
  if (input.feedback.length > 0) {
    messages.push({
      role: 'user',
      content: `Your previous reply could not be used:\n- ${input.feedback.join('\n- ')}\nPlease try again.`,
    });
  }
  return messages;
}

/** The final-answer request made after a non-success stop: summarise progress and say why the run stopped. */
export function forcedAnswerInstruction(reasonDetail: string): string {
  return (
    `The run must stop now because ${reasonDetail}. No more tools can be used. ` +
    'Give your best final answer from what you found so far: summarise the progress, state what is still ' +
    'missing, and say plainly why you stopped.'
  );
}
