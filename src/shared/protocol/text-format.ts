import type { AgentConfig } from '../config';
import type { ReActStep } from '../types';
import { CLARIFICATION_TOOL, DELEGATE_TOOL } from './builtin-actions';
import type { TextTags } from './model-io';

/** Tag that introduces the answer in text mode. */
export const FINAL_ANSWER_TAG = 'Final Answer:';

/** The tag of the arguments line, derived from the action tag: `Action:` gives `Action Input:`. */
export function actionInputTag(tags: TextTags): string {
  return `${tags.action.replace(/:\s*$/, '')} Input:`;
}

/** The text-protocol tags of a config. */
export function tagsOf(config: Pick<AgentConfig, 'thoughtTag' | 'actionTag' | 'observationTag'>): TextTags {
  return { thought: config.thoughtTag, action: config.actionTag, observation: config.observationTag };
}

/** A text-mode reply, understood. Exactly one of `action`, `finalAnswer` or `malformed` is set. */
export interface TextReply {
  thought: string;
  action?: { tool: string; argumentsText: string; args?: unknown; parseError?: string };
  finalAnswer?: string;
  malformed?: string;
}

/** The instructions that teach a model without tool calling the text protocol. */
export function textProtocolInstructions(tags: TextTags): string {
  const input = actionInputTag(tags);
  return [
    'Reply in exactly this format:',
    `${tags.thought} <your reasoning>`,
    `${tags.action} <one tool name>`,
    `${input} <the arguments as one JSON object>`,
    '',
    `Then stop: the runtime runs the tool and replies with "${tags.observation} <result>".`,
    'When you know the answer, reply instead with:',
    `${tags.thought} <your reasoning>`,
    `${FINAL_ANSWER_TAG} <the answer>`,
  ].join('\n');
}

interface TagHit {
  key: 'thought' | 'action' | 'input' | 'final' | 'observation';
  start: number;
  end: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A tag with optional markdown bold around it, the colon inside or outside: `**Thought:**` or `**Thought**:`. */
function tagPattern(tag: string): string {
  const bold = '(?:\\*\\*)?';
  if (!tag.endsWith(':')) return `${bold}${escapeRegExp(tag)}${bold}`;
  return `${bold}${escapeRegExp(tag.slice(0, -1).trimEnd())}${bold}\\s*:${bold}`;
}

/** Finds each tag at the start of a line (case-insensitive, markdown emphasis tolerated). */
function findTags(text: string, tags: TextTags): TagHit[] {
  const patterns: Array<[TagHit['key'], string]> = [
    ['input', actionInputTag(tags)],
    ['thought', tags.thought],
    ['action', tags.action],
    ['final', FINAL_ANSWER_TAG],
    ['observation', tags.observation],
  ];
  const hits: TagHit[] = [];
  for (const [key, tag] of patterns) {
    const regex = new RegExp(`^[ \\t]*${tagPattern(tag)}`, 'gim');
    for (const match of text.matchAll(regex)) {
      const start = match.index;
      // "Action Input:" also starts with "Action": keep only the longer tag at one position.
      if (hits.some((hit) => hit.start === start)) continue;
      hits.push({ key, start, end: start + match[0].length });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

function stripCodeFence(text: string): string {
  const fenced = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/.exec(text.trim());
  return (fenced?.[1] ?? text).trim();
}

function parseArguments(raw: string): { args?: unknown; parseError?: string } {
  const text = stripCodeFence(raw);
  if (text === '') return { args: {} };
  try {
    return { args: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { parseError: `the arguments are not valid JSON (${reason})` };
  }
}

/**
 * Parses a text-mode reply. Anything after an observation tag is dropped (the model must not invent results), and
 * a reply that cannot be understood is returned as `malformed` with a message the model can act on.
 */
export function parseTextReply(reply: string, tags: TextTags): TextReply {
  const all = findTags(reply, tags);
  const observationAt = all.find((hit) => hit.key === 'observation')?.start ?? reply.length;
  const hits = all.filter((hit) => hit.start < observationAt);
  const section = (key: TagHit['key']): string | undefined => {
    const index = hits.findIndex((hit) => hit.key === key);
    const hit = hits[index];
    if (!hit) return undefined;
    const next = hits[index + 1]?.start ?? observationAt;
    return reply.slice(hit.end, next).trim();
  };
  const firstTag = hits[0]?.start ?? observationAt;
  const thought = section('thought') ?? reply.slice(0, firstTag).trim();
  const final = section('final');
  const actionText = section('action');
  const format = `Use "${tags.action} <tool>" with "${actionInputTag(tags)} <JSON>", or "${FINAL_ANSWER_TAG} <answer>".`;

  if (final !== undefined && actionText !== undefined) {
    return { thought, malformed: `Your reply has both an action and a final answer; give only one. ${format}` };
  }
  if (final !== undefined) {
    if (final === '') return { thought, malformed: `Your final answer is empty. ${format}` };
    return { thought, finalAnswer: final };
  }
  if (actionText === undefined) {
    return { thought, malformed: `Your reply has no "${tags.action}" and no "${FINAL_ANSWER_TAG}" line. ${format}` };
  }
  const tool = (actionText.split('\n')[0] ?? '').replace(/[`*"']/g, '').trim();
  if (tool === '') return { thought, malformed: `The "${tags.action}" line names no tool. ${format}` };
  const argumentsText = section('input') ?? '';
  return { thought, action: { tool, argumentsText, ...parseArguments(argumentsText) } };
}

/** Tool arguments as the model writes them: JSON, or the raw text when they never parsed. */
export function renderArguments(args: unknown): string {
  return typeof args === 'string' ? args : (JSON.stringify(args) ?? '{}');
}

/** One step in the text protocol, as the model would have written it plus the observation it was given. */
export function renderTextStep(step: ReActStep, tags: TextTags): { reply: string; observation: string | null } {
  const thought = `${tags.thought} ${step.thought}`;
  switch (step.action.type) {
    case 'tool_call':
      return {
        reply: `${thought}\n${tags.action} ${step.action.tool}\n${actionInputTag(tags)} ${renderArguments(step.action.args)}`,
        observation: `${tags.observation} ${step.observation ?? ''}`,
      };
    case 'final_answer':
      return { reply: `${thought}\n${FINAL_ANSWER_TAG} ${step.action.answer}`, observation: null };
    case 'clarification':
      return {
        reply: `${thought}\n${tags.action} ${CLARIFICATION_TOOL}\n${actionInputTag(tags)} ${JSON.stringify({ question: step.action.question })}`,
        observation: `${tags.observation} ${step.observation ?? ''}`,
      };
    case 'delegate':
      return {
        reply: `${thought}\n${tags.action} ${DELEGATE_TOOL}\n${actionInputTag(tags)} ${JSON.stringify({ agent: step.action.agent, task: step.action.task })}`,
        observation: `${tags.observation} ${step.observation ?? ''}`,
      };
  }
}

/** The scratchpad as text (Thought / Action / Action Input / Observation), served by the getScratchpad query. */
export function renderScratchpad(
  steps: readonly ReActStep[],
  config: Pick<AgentConfig, 'thoughtTag' | 'actionTag' | 'observationTag'>,
): string {
  const tags = tagsOf(config);
  return steps
    .map((step) => {
      const { reply, observation } = renderTextStep(step, tags);
      return observation === null ? reply : `${reply}\n${observation}`;
    })
    .join('\n\n');
}
