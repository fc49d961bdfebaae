/**
 * The built-in actions every model is offered besides the registered tools: their names, the JSON Schemas of their
 * arguments (as offered to the model) and the parsers that read a call of one. Pure, so the worker (which offers and
 * reads them) and the workflow (which runs delegations) share one definition.
 */

/** Name of the built-in tool native-mode models may call to finish. */
export const FINAL_ANSWER_TOOL = 'final_answer';
/** Name of the built-in action with which a model asks the user a question. */
export const CLARIFICATION_TOOL = 'request_clarification';
/** Name of the built-in action that hands a task to a named subagent. */
export const DELEGATE_TOOL = 'delegate';

/** A JSON Schema object, as sent to the model. */
export type JsonSchema = Record<string, unknown>;

/** Description of the final-answer action. */
export const FINAL_ANSWER_DESCRIPTION = 'Give the final answer to the task and stop.';

/** Arguments of final_answer; with an output schema, `answer` is that structured object. */
export function finalAnswerParameters(outputSchema: JsonSchema | undefined): JsonSchema {
  return {
    type: 'object',
    properties: {
      answer: outputSchema ?? { type: 'string', description: 'The final answer' },
      confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Optional: how sure you are, 0 to 1' },
    },
    required: ['answer'],
  };
}

/** Description of the clarification action. */
export const CLARIFICATION_DESCRIPTION =
  'Ask the user a question when the task is ambiguous or needs information only they have. The run waits for the answer.';

/** Arguments of request_clarification. */
export const CLARIFICATION_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: { question: { type: 'string', description: 'One clear question for the user' } },
  required: ['question'],
};

/** Description of the delegate action, listing the subagents (name → description). */
export function delegateDescription(subagents: Record<string, string>): string {
  const list = Object.entries(subagents)
    .map(([name, description]) => `${name} (${description})`)
    .join('; ');
  return `Hand a self-contained task to a subagent and get its answer. Subagents: ${list}.`;
}

/** Arguments of delegate: which subagent, and the task it gets. */
export function delegateParameters(subagents: Record<string, string>): JsonSchema {
  return {
    type: 'object',
    properties: {
      agent: { type: 'string', enum: Object.keys(subagents), description: 'Which subagent' },
      task: { type: 'string', description: 'The task, self-contained: the subagent sees nothing else' },
    },
    required: ['agent', 'task'],
  };
}

/** The non-blank text of `args[field]` (JSON values rendered as JSON), or null. */
function fieldText(args: unknown, field: string): string | null {
  if (typeof args !== 'object' || args === null || !(field in args)) return null;
  const value = (args as Record<string, unknown>)[field];
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.trim() === '' ? null : text;
}

/** A confidence in [0, 1] given beside an answer; anything else is ignored rather than refused. */
export function confidenceIn(args: unknown): number | null {
  const value = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).confidence : undefined;
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : null;
}

/** Reads a final_answer call: the answer (structured answers as JSON text) and confidence, or what is wrong. */
export function parseFinalAnswer(
  args: unknown,
  argumentsText: string,
): { answer: string; confidence: number | null } | { problem: string } {
  const answer = fieldText(args, 'answer');
  if (answer !== null) return { answer, confidence: confidenceIn(args) };
  return { problem: `${FINAL_ANSWER_TOOL} needs {"answer": "..."}; got ${argumentsText || 'nothing'}` };
}

/** Reads a request_clarification call: the question, or what is wrong. */
export function parseClarification(args: unknown, argumentsText: string): { question: string } | { problem: string } {
  const question = fieldText(args, 'question');
  if (question !== null) return { question };
  return { problem: `${CLARIFICATION_TOOL} needs {"question": "..."}; got ${argumentsText || 'nothing'}` };
}

/** Reads a delegate call's arguments, or null when they are not `{ agent, task }` with a non-blank task. */
export function parseDelegation(args: unknown): { agent: string; task: string } | null {
  if (typeof args !== 'object' || args === null) return null;
  const { agent, task } = args as Record<string, unknown>;
  return typeof agent === 'string' && typeof task === 'string' && task.trim() !== '' ? { agent, task } : null;
}
