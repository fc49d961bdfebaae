import type { AgentConfig } from '../shared/config';

/**
 * Thoughts that say nothing about the task: they name an action without a reason. Models fall into these when
 * tool calling tempts them to skip reasoning, and they make traces useless to the humans reading them.
 */
const DEGENERATE_THOUGHTS: readonly RegExp[] = [
  /^(?:i(?:\s+(?:will|should|need to|am going to|must)|['’]ll)\s+)?(?:now\s+)?(?:use|call|invoke|run|try)\s+(?:the\s+)?[\w-]+(?:\s+tool)?[.!]?$/i,
  /^(?:let me|let's|lets)\s+(?:use|call|check|try|run|think|see)\b[^.]{0,24}[.!]?$/i,
  /^(?:thinking|thought|ok(?:ay)?|sure|hmm+|none|n\/a|tbd|\.+|-+)[.!]?$/i,
];

/**
 * Checks a thought that accompanies a tool call. Returns feedback for the model when it is missing, too short or
 * degenerate, or null when it is acceptable (always null when `requireThought` is off).
 */
export function validateThought(thought: string, config: AgentConfig): string | null {
  if (!config.requireThought) return null;
  const text = thought.trim();
  const ask = 'Before calling a tool, write your reasoning: what you know, what is missing, and why this tool helps.';
  if (text === '') return `Your reply had no thought. ${ask}`;
  if (DEGENERATE_THOUGHTS.some((pattern) => pattern.test(text))) {
    return `Your thought "${text}" only names an action. ${ask}`;
  }
  if (text.length < config.minThoughtLength) {
    return `Your thought "${text}" is too short (under ${config.minThoughtLength} characters). ${ask}`;
  }
  return null;
}
