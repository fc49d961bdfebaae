/* The prompts a run uses unless its config sets its own. */

/** The seed's thought template: what is known, what is missing, the next step, and which tool. */
export const DEFAULT_THOUGHT_PROMPT = [
  'Before every action, think step by step and write your reasoning:',
  '1. What do I know so far?',
  '2. What information is still missing?',
  '3. What is the next logical step?',
  '4. Which tool (if any) gives me that, and with which arguments?',
  'When you have enough information, give the final answer instead of calling a tool.',
].join('\n');

/** The default system prompt; the tool catalog and protocol instructions are appended to it. */
export const DEFAULT_SYSTEM_PROMPT =
  'You are a careful assistant that solves tasks by reasoning and acting. ' +
  'Use the available tools to gather facts instead of guessing, and answer concisely.';
