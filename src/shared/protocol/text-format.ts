import { actionInputTag, FINAL_ANSWER_TAG, type TextTags } from './model-io';

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
