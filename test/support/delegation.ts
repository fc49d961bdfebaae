import type { ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';

/** The system prompt of the `researcher` subagent, which tells its requests apart from its parent's. */
export const RESEARCHER = 'You are the researcher subagent.';
/** The parent's config for one `researcher` subagent. */
export const researcherSubagents = { researcher: { description: 'looks facts up', systemPrompt: RESEARCHER } };

/**
 * A parent that delegates "What is 12 squared?" to the researcher, then answers with what it found; the researcher
 * plays `child` in order (parent and child share the scripted model name).
 */
export function delegatingScript(child: readonly ScriptedTurn[]): ScriptedResponder {
  let parentCalls = 0;
  let childCalls = 0;
  return (request) => {
    if (String(request.messages[0]?.content).startsWith(RESEARCHER)) {
      return child[childCalls++] ?? { status: 400, errorMessage: 'the researcher script is exhausted' };
    }
    return parentCalls++ === 0
      ? {
          thought: 'The researcher can look this up while I keep the overview.',
          toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 12 squared?' } }],
        }
      : { answer: 'The researcher found 144.' };
  };
}
