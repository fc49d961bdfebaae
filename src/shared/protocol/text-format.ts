import type { ResolvedConfig } from '../config';
import type { ReActStep } from '../types';
import { CLARIFICATION_TOOL, DELEGATE_TOOL, FINAL_ANSWER_TOOL } from './builtin-actions';
import { parseLooseJson, stripCodeFence } from './loose-json';
import { visibleThought } from './reasoning';
import type { TextTags } from './model-io';

/** Tag that introduces the answer in text mode. */
export const FINAL_ANSWER_TAG = 'Final Answer:';

/** The tag of the arguments line, derived from the action tag: `Action:` gives `Action Input:`. */
export function actionInputTag(tags: TextTags): string {
  return `${tags.action.replace(/:\s*$/, '')} Input:`;
}

/** The text-protocol tags of a config. */
export function tagsOf(config: Pick<ResolvedConfig, 'modelSettings'>): TextTags {
  return {
    thought: config.modelSettings.thoughtTag,
    action: config.modelSettings.actionTag,
    observation: config.modelSettings.observationTag,
  };
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

type TagKey = 'thought' | 'action' | 'input' | 'final' | 'observation';

interface TagHit {
  key: TagKey;
  start: number;
  end: number;
  /** Written without a colon, or as an alias: a tag only where no firmer reading says otherwise. */
  weak: boolean;
}

/** One spelling of a tag: its words (no colon), and whether it is a fallback spelling of another tag. */
interface TagSpelling {
  key: TagKey;
  words: string;
  alias?: boolean;
}

/** `Answer:` stands for `Final Answer:` when the latter is absent. */
const FINAL_ANSWER_ALIAS = 'Answer';

/** What may follow `Action` written without a colon: a tool name, maybe with bracketed arguments. */
const TOOL_REFERENCE = /^[`*"']*[\w./-]+[`*"']*[ \t]*(?:[[({].*)?$/;

/** What may follow `Action Input` written without a colon: the start of JSON, a fence or a quoted string. */
const ARGUMENTS_START = /^[{[`'"]/;

/** Arguments that mean "none" for a tool that takes none; `None` is what Python-trained models write. */
const NO_ARGUMENTS = /^(?:none|null|nothing|n\/a|-|\(none\)|no input)$/i;

/** Keyword arguments in a call-style action, `calculator(expression="2+2")`; `==` is a comparison, not one. */
const KEYWORD_ARGUMENTS = /^[A-Za-z_]\w*[ \t]*=(?!=)/;

/** Fence info strings of a reply wrapped whole in a code block (a `json` fence is a snippet, not the reply). */
const REPLY_FENCE = /^[ \t]*```[ \t]*(?:text|txt|plain|plaintext|markdown|md)?[ \t]*\r?$/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A tag at the start of a line, as models write it: any case, `**bold**` or `### heading`, then a colon (after a
 * step number too: `Thought 1:`), a dash, the end of the line, or just a space. A number needs the colon: in
 * `Final Answer 4` the 4 is the answer. Groups: 1 heading, 2 opening emphasis, 3 colon, 4 dash, 5 end of line,
 * 6 space.
 */
function tagRegex(words: string): RegExp {
  const name = words.trim().split(/\s+/).map(escapeRegExp).join('[ \\t_]+');
  return new RegExp(
    `^[ \\t]*(#{1,6}[ \\t]*)?([*_]{0,3})${name}` +
      `(?:(?:[ \\t]*#?\\d{1,3})?[*_]{0,3}([ \\t]*[:\uFF1A][*_]{0,3})` +
      `|[*_]{0,3}(?:([ \\t]+[-\u2013\u2014][*_]{0,3}(?=[ \\t]|$))|([ \\t]*\\r?$)|([ \\t]+)))`,
    'gim',
  );
}

/** A configured tag that does not end in a colon is matched literally, `**bold**` tolerated, and always firmly. */
function literalTagRegex(tag: string): RegExp {
  return new RegExp(`^[ \\t]*(?:\\*\\*)?${escapeRegExp(tag)}(?:\\*\\*)?`, 'gim');
}

/**
 * Whether a match is a tag, and how firmly. The colon form and a decorated tag alone on its line are firm; the other
 * forms are weak, and only where they cannot be ordinary prose: `Action` must be followed by a tool name,
 * `Action Input` by JSON, and an observation or the `Answer` alias is never recognised from a bare space.
 */
function tagStrength(spelling: TagSpelling, match: RegExpExecArray, restOfLine: string): 'firm' | 'weak' | null {
  const decorated = Boolean(match[1]) || Boolean(match[2]);
  const [colon, dash, alone, space] = [match[3], match[4], match[5], match[6]].map((group) => group !== undefined);
  if (spelling.alias) return colon || dash || (alone && decorated) ? 'weak' : null;
  if (colon || (alone && decorated)) return 'firm';
  if (alone) return 'weak';
  if (spelling.key === 'observation') return null;
  if (dash) return 'weak';
  if (!space) return null;
  if (spelling.key === 'action') return TOOL_REFERENCE.test(restOfLine.trim()) ? 'weak' : null;
  if (spelling.key === 'input') return ARGUMENTS_START.test(restOfLine) ? 'weak' : null;
  return 'weak';
}

/** Finds each tag at the start of a line; at one position only the longer tag counts (`Action Input` over `Action`). */
function findTags(text: string, tags: TextTags): TagHit[] {
  const spellings: TagSpelling[] = [
    { key: 'input', words: actionInputTag(tags) },
    { key: 'thought', words: tags.thought },
    { key: 'action', words: tags.action },
    { key: 'final', words: FINAL_ANSWER_TAG },
    { key: 'final', words: FINAL_ANSWER_ALIAS, alias: true },
    { key: 'observation', words: tags.observation },
  ];
  const hits: TagHit[] = [];
  const taken = new Set<number>();
  for (const spelling of spellings) {
    const literal = !spelling.alias && !spelling.words.trimEnd().endsWith(':');
    const regex = literal ? literalTagRegex(spelling.words) : tagRegex(spelling.words.replace(/:\s*$/, ''));
    for (const match of text.matchAll(regex)) {
      const start = match.index;
      if (taken.has(start)) continue;
      const end = start + match[0].length;
      const lineEnd = text.indexOf('\n', end);
      const strength = literal
        ? 'firm'
        : tagStrength(spelling, match, text.slice(end, lineEnd < 0 ? undefined : lineEnd));
      if (strength === null) continue;
      hits.push({ key: spelling.key, start, end, weak: strength === 'weak' });
      taken.add(start);
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

/**
 * Keeps the weak tags that cannot be misread: a weak tag counts only when its own tag is nowhere written firmly,
 * text after the final answer is the answer's (its lines may start with "Action" or "Thought"), and a weak final
 * answer yields to an action (the model guessed the result) as a weak action yields to a firm final answer.
 */
function settleTags(hits: readonly TagHit[]): TagHit[] {
  const firm = new Set(hits.filter((hit) => !hit.weak).map((hit) => hit.key));
  let kept = hits.filter((hit) => !hit.weak || !firm.has(hit.key));
  const finalAt = kept.find((hit) => hit.key === 'final')?.start;
  if (finalAt !== undefined) kept = kept.filter((hit) => !hit.weak || hit.start <= finalAt);
  const final = kept.filter((hit) => hit.key === 'final');
  const action = kept.filter((hit) => hit.key === 'action');
  if (final.length > 0 && action.length > 0) {
    if (final.every((hit) => hit.weak)) kept = kept.filter((hit) => hit.key !== 'final');
    else if (action.every((hit) => hit.weak)) kept = kept.filter((hit) => hit.key !== 'action' && hit.key !== 'input');
  }
  return kept;
}

/** A reply wrapped whole in a ```` ``` ```` or ```` ```text ```` fence, unwrapped; inner fences (the arguments') stay. */
function unwrapReply(reply: string): string {
  const lines = reply.trim().split('\n');
  if (lines.length < 2 || !REPLY_FENCE.test(lines[0] ?? '')) return reply;
  const inner = lines.slice(1);
  // The closing fence is the last line when the fences inside pair up without it (a cut-off reply has none).
  const fences = inner.filter((line) => /^[ \t]*```/.test(line)).length;
  if (fences % 2 === 1 && /^[ \t]*```[ \t]*\r?$/.test(inner[inner.length - 1] ?? '')) inner.pop();
  return inner.join('\n');
}

/** The arguments of an action and the text they were read from (kept as the model wrote it). */
type ActionArguments = Omit<NonNullable<TextReply['action']>, 'tool'>;

/**
 * A plain-text argument for a tool. The built-in actions have one obvious field, so `final_answer[Paris]` answers.
 * For other tools the parser knows no schema: the text is passed on as a string, the worker's schema check decides
 * (a tool with a single string property can take it there), and never a parse error the model cannot fix.
 */
function plainArgument(tool: string, text: string): unknown {
  if (tool === FINAL_ANSWER_TOOL) return { answer: text };
  if (tool === CLARIFICATION_TOOL) return { question: text };
  return text;
}

/** Arguments from an `Action Input` section: JSON as models write it, "none" for no arguments, or plain text. */
function inputArguments(tool: string, argumentsText: string): ActionArguments {
  const unfenced = stripCodeFence(argumentsText);
  if (unfenced === '' || NO_ARGUMENTS.test(unfenced)) return { argumentsText, args: {} };
  const parsed = parseLooseJson(argumentsText);
  if (parsed.ok) {
    const { value } = parsed;
    return { argumentsText, args: typeof value === 'string' ? plainArgument(tool, value) : value };
  }
  // Text that starts like an object was meant as one: say what to fix rather than pass on a broken object as text.
  if (/^[{[]/.test(unfenced))
    return { argumentsText, parseError: `the arguments are not valid JSON (${parsed.error})` };
  return { argumentsText, args: plainArgument(tool, unfenced) };
}

/**
 * Arguments written on the action line, ReAct-paper style: `tool[text]` and `tool(text)` pass their text as one
 * plain-text argument (see {@link plainArgument}), `tool(key=value, ...)` are keyword arguments, and JSON or a
 * quoted string inside the brackets is read as such.
 */
function inlineArguments(tool: string, argumentsText: string, callStyle: boolean): ActionArguments {
  const text = argumentsText.trim();
  if (text === '') return { argumentsText, args: {} };
  if (/^(?:[{[]|```)/.test(text)) return inputArguments(tool, text);
  if (callStyle && KEYWORD_ARGUMENTS.test(text)) {
    const keywords = parseLooseJson(`{${text}}`);
    if (keywords.ok) return { argumentsText, args: keywords.value };
  }
  if (/^["']/.test(text)) {
    const quoted = parseLooseJson(text);
    if (quoted.ok && typeof quoted.value === 'string')
      return { argumentsText, args: plainArgument(tool, quoted.value) };
  }
  return { argumentsText, args: plainArgument(tool, text) };
}

/** The tool named by an `Action` section, and arguments written right after the name (`tool[...]`, `tool {...}`). */
function readAction(section: string): { tool: string; inline?: { text: string; callStyle: boolean } } {
  const firstLine = section.split('\n')[0] ?? '';
  const decoration = /^[`*"']*/.exec(section)?.[0].length ?? 0;
  const named = /^([^\s[\](){}`*"']+)[`*"']*[ \t]*([[({])/.exec(section.slice(decoration));
  if (!named) return { tool: firstLine.replace(/[`*"']/g, '').trim() };
  const tool = named[1] ?? '';
  const opener = named[2];
  const after = section.slice(decoration + named[0].length);
  if (opener === '{') return { tool, inline: { text: `{${after}`, callStyle: false } };
  const closer = opener === '[' ? ']' : ')';
  // The closing bracket is the last one on the line, or in the section when the arguments span lines.
  const lineEnd = after.indexOf('\n');
  const onLine = after.slice(0, lineEnd < 0 ? undefined : lineEnd).lastIndexOf(closer);
  const close = onLine >= 0 ? onLine : after.lastIndexOf(closer);
  return { tool, inline: { text: close >= 0 ? after.slice(0, close) : after, callStyle: opener === '(' } };
}

/**
 * Parses a text-mode reply. Anything after an observation tag is dropped (the model must not invent results), and
 * a reply that cannot be understood is returned as `malformed` with a message the model can act on. Tags are read
 * as small models write them (numbered, bold, as headings, without the colon; `Answer:` for `Final Answer:`), and
 * arguments as JSON with trailing prose, a fence, a Python dict or plain text.
 */
export function parseTextReply(reply: string, tags: TextTags): TextReply {
  const text = unwrapReply(reply);
  const all = settleTags(findTags(text, tags));
  const observationAt = all.find((hit) => hit.key === 'observation')?.start ?? text.length;
  const hits = all.filter((hit) => hit.start < observationAt);
  const section = (key: TagKey): string | undefined => {
    const index = hits.findIndex((hit) => hit.key === key);
    const hit = hits[index];
    if (!hit) return undefined;
    const next = hits[index + 1]?.start ?? observationAt;
    return text.slice(hit.end, next).trim();
  };
  const firstTag = hits[0]?.start ?? observationAt;
  const thought = section('thought') ?? text.slice(0, firstTag).trim();
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
  const { tool, inline } = readAction(actionText);
  if (tool === '') return { thought, malformed: `The "${tags.action}" line names no tool. ${format}` };
  const input = section('input');
  // An explicit Action Input wins over text after the tool name, which may be an aside: `search (the web)`.
  const args =
    inline && (input === undefined || input === '')
      ? inlineArguments(tool, inline.text, inline.callStyle)
      : inputArguments(tool, input ?? '');
  return { thought, action: { tool, ...args } };
}

/** Tool arguments as the model writes them: JSON, or the raw text when they never parsed. */
export function renderArguments(args: unknown): string {
  return typeof args === 'string' ? args : (JSON.stringify(args) ?? '{}');
}

/** One step in the text protocol, as the model would have written it plus the observation it was given. */
export function renderTextStep(step: ReActStep, tags: TextTags): { reply: string; observation: string | null } {
  // What the model wrote: reasoning it gave apart is not part of the text protocol, nor sent back in prompts.
  const thought = `${tags.thought} ${visibleThought(step.thought, step.reasoningChars)}`;
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
export function renderScratchpad(steps: readonly ReActStep[], config: Pick<ResolvedConfig, 'modelSettings'>): string {
  const tags = tagsOf(config);
  return steps
    .map((step) => {
      const { reply, observation } = renderTextStep(step, tags);
      return observation === null ? reply : `${reply}\n${observation}`;
    })
    .join('\n\n');
}
