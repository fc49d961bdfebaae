import type { ResolvedConfig } from '../../shared/config';

/**
 * Thoughts that say nothing about the task: they name an action without a reason. Models fall into these when
 * tool calling tempts them to skip reasoning, and they make traces useless to the humans reading them.
 */
const DEGENERATE_THOUGHTS: readonly RegExp[] = [
  /^(?:i(?:\s+(?:will|should|need to|am going to|must)|['’]ll)\s+)?(?:now\s+)?(?:use|call|invoke|run|try)\s+(?:the\s+)?[\w-]+(?:\s+tool)?[.!]?$/i,
  /^(?:let me|let's|lets)\s+(?:use|call|check|try|run|think|see)\b[^.]{0,24}[.!]?$/i,
  /^(?:thinking|thought|ok(?:ay)?|sure|hmm+|none|n\/a|tbd|\.+|-+)[.!]?$/i,
];

/** Verbs of acting, in their base form: with a tool's name they say which action, never why. */
const ACTION_VERBS = new Set([
  'use',
  'call',
  'invoke',
  'run',
  'try',
  'execute',
  'employ',
  'utilize',
  'utilise',
  'apply',
  'perform',
  'trigger',
  'launch',
  'start',
  'begin',
  'make',
  'do',
  'go',
  'proceed',
  'check',
  'look',
  'see',
  'need',
  'want',
  'let',
]);

/** Words that carry no content of their own (matched exactly: stemming them would swallow real words). */
const FILLER = new Set([
  'i',
  'me',
  'my',
  'we',
  'us',
  'our',
  'it',
  'its',
  'this',
  'that',
  'the',
  'a',
  'an',
  'to',
  'for',
  'with',
  'via',
  'by',
  'on',
  'of',
  'in',
  'at',
  'from',
  'into',
  'and',
  'up',
  'will',
  'shall',
  'should',
  'must',
  'can',
  'could',
  'would',
  'may',
  'might',
  'am',
  'is',
  'are',
  'be',
  'going',
  'gonna',
  'now',
  'then',
  'next',
  'first',
  'again',
  'just',
  'so',
  'ok',
  'okay',
  'alright',
  'sure',
  'right',
  'here',
  'there',
  'please',
  'ahead',
  'also',
  'once',
  'time',
  'step',
  'tool',
  'tools',
  'function',
  'action',
  's',
  'll',
  'm',
  've',
  'd',
  're',
]);

/** Suffixes of English inflections and what replaces them in the base form. */
const INFLECTIONS: ReadonlyArray<readonly [string, string]> = [
  ['ies', 'y'],
  ['es', ''],
  ['s', ''],
  ['ed', ''],
  ['ed', 'e'],
  ['ing', ''],
  ['ing', 'e'],
];

/** The word and what it may be an inflection of ("calling" → "call", "using" → "use", "running" → "run"). */
function baseForms(word: string): string[] {
  const forms = [word];
  for (const [suffix, replacement] of INFLECTIONS) {
    if (word.length <= suffix.length + 1 || !word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length) + replacement;
    forms.push(stem);
    if (replacement === '' && /(.)\1$/.test(stem)) forms.push(stem.slice(0, -1));
  }
  return forms;
}

/** The words a tool's name can appear as: whole, without separators, and its parts split on _, - and camelCase. */
function nameWords(toolNames: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const name of toolNames) {
    words.add(name.toLowerCase().replace(/[_-]/g, ''));
    for (const part of name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_-]+/)) words.add(part.toLowerCase());
  }
  words.delete('');
  return words;
}

/** True when nothing is left of the thought once the called tools' names, action verbs, filler and punctuation go. */
function onlyRestatesAction(text: string, toolNames: readonly string[]): boolean {
  const names = nameWords(toolNames);
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
  return words.every(
    (word) => FILLER.has(word) || baseForms(word).some((form) => ACTION_VERBS.has(form) || names.has(form)),
  );
}

/** How strictly a run checks thoughts: `thoughts.require` as the loop reads it. */
export type ThoughtPolicy = 'strict' | 'auto' | 'off';

/** The run's thought policy. */
export function thoughtPolicy(config: Pick<ResolvedConfig, 'thoughts'>): ThoughtPolicy {
  if (config.thoughts.require === false) return 'off';
  return config.thoughts.require === 'auto' ? 'auto' : 'strict';
}

/**
 * Checks a thought that accompanies a tool call. Returns feedback for the model when it is missing, too short or
 * degenerate, or null when it is acceptable. `toolNames`, the tools the reply calls, also catch thoughts
 * that only restate the action ("Using the calculator."). Under `'auto'` a missing thought is accepted (many models
 * call tools with no text at all; asking again spends the run), and so is any thought right after one was sent back
 * (`refusedLastTime`): one reminder, never a loop of them.
 */
export function validateThought(
  thought: string,
  config: ResolvedConfig,
  toolNames: readonly string[],
  policy: ThoughtPolicy = config.thoughts.require === false ? 'off' : 'strict',
  refusedLastTime = false,
): string | null {
  if (policy === 'off') return null;
  const text = thought.trim();
  if (policy === 'auto' && (text === '' || refusedLastTime)) return null;
  const ask = 'Before calling a tool, write your reasoning: what you know, what is missing, and why this tool helps.';
  if (text === '') return `Your reply had no thought. ${ask}`;
  const degenerate = DEGENERATE_THOUGHTS.some((pattern) => pattern.test(text));
  if (degenerate || onlyRestatesAction(text, toolNames)) {
    return `Your thought "${text}" only names an action. ${ask}`;
  }
  if (text.length < config.thoughts.minLength) {
    return `Your thought "${text}" is too short (under ${config.thoughts.minLength} characters). ${ask}`;
  }
  return null;
}
