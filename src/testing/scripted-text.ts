import type { ScriptedToolCall, ScriptedTurn } from './scripted-turn';

/*
 * A scripted turn written out for text mode (no `tools` in the request, the action in the reply's text). Scripts
 * describe what the model does (a thought, a call, an answer); these functions write it the way a model following the
 * protocol would, or the way small models really do when they half follow it. Only the default tags are written: a
 * test of custom tags scripts its replies as `content`.
 */

/** JSON arguments as the model writes them; `rawArguments` stays verbatim so bad JSON can be scripted in text too. */
function argumentsJson(call: ScriptedToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.args ?? {});
}

/** A JSON value as Python's `repr` writes it: what a model trained on Python code tends to put after "Action Input:". */
function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([key, item]) => `${pythonLiteral(key)}: ${pythonLiteral(item)}`).join(', ')}}`;
  }
  return 'None'; // functions and symbols: JSON has no such values either
}

const thoughtLine = (thought: string | undefined): string[] => (thought === undefined ? [] : [`Thought: ${thought}`]);

/**
 * The turn as the protocol asks for it: `Thought: …` then `Action: name` and `Action Input: {json}` (the first call
 * only: the protocol has one action per reply), or `Final Answer: …`. `thought` is the reasoning to write, if any.
 */
export function canonicalText(turn: ScriptedTurn, thought: string | undefined): string {
  const call = turn.toolCalls?.[0];
  if (call) return [...thoughtLine(thought), `Action: ${call.name}`, `Action Input: ${argumentsJson(call)}`].join('\n');
  if (turn.answer !== undefined) return [...thoughtLine(thought), `Final Answer: ${turn.answer}`].join('\n');
  return thoughtLine(thought).join('\n');
}

/** The ways a sloppy model writes an action; which one a reply gets cycles with the turn's index. */
const SLOPPY_ACTIONS: ReadonlyArray<(call: ScriptedToolCall, thought: string | undefined, number: number) => string> = [
  // Numbered steps, as in the original ReAct paper's few-shot prompts.
  (call, thought, number) =>
    [
      ...(thought === undefined ? [] : [`Thought ${number}: ${thought}`]),
      `Action ${number}: ${call.name}`,
      `Action Input ${number}: ${argumentsJson(call)}`,
    ].join('\n'),
  // The whole reply in a code fence.
  (call, thought) =>
    ['```', ...thoughtLine(thought), `Action: ${call.name}`, `Action Input: ${argumentsJson(call)}`, '```'].join('\n'),
  // The JSON, then the model goes on talking on the same line.
  (call, thought) =>
    [
      ...thoughtLine(thought),
      `Action: ${call.name}`,
      `Action Input: ${argumentsJson(call)} I will wait for the result before going on.`,
    ].join('\n'),
  // A Python dict instead of JSON.
  (call, thought) =>
    [
      ...thoughtLine(thought),
      `Action: ${call.name}`,
      `Action Input: ${call.rawArguments ?? pythonLiteral(call.args ?? {})}`,
    ].join('\n'),
  // Markdown headings instead of tags.
  (call, thought) =>
    [
      ...(thought === undefined ? [] : ['### Thought', thought, '']),
      '### Action',
      call.name,
      '',
      '### Action Input',
      argumentsJson(call),
    ].join('\n'),
];

/** The ways a sloppy model writes its answer. */
const SLOPPY_ANSWERS: ReadonlyArray<(answer: string, thought: string | undefined) => string> = [
  (answer, thought) => [...thoughtLine(thought), `Answer: ${answer}`].join('\n'),
  (answer, thought) => [...thoughtLine(thought), '', `**Final Answer:** ${answer}`].join('\n'),
];

/** Position `n` in a cycle of `length` forms, for any whole `n` (a negative seed included). */
const cyclePosition = (n: number, length: number): number => ((n % length) + length) % length;

/**
 * The turn the way small models write the protocol when they only half follow it: numbered tags, a code fence, prose
 * after the JSON, a Python dict, markdown headings; `Answer:` or `**Final Answer:**`. The form cycles with the turn's
 * `index` (the script's `seed` shifts where the cycle starts), so a script's replies go through every form in order.
 */
export function sloppyText(turn: ScriptedTurn, thought: string | undefined, index: number, seed = 0): string {
  const call = turn.toolCalls?.[0];
  if (call) return SLOPPY_ACTIONS[cyclePosition(index + seed, SLOPPY_ACTIONS.length)]!(call, thought, index + 1);
  if (turn.answer !== undefined)
    return SLOPPY_ANSWERS[cyclePosition(index + seed, SLOPPY_ANSWERS.length)]!(turn.answer, thought);
  return canonicalText(turn, thought);
}
