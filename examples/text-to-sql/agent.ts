import type { AgentConfig, ReActResult } from 'durable-react-agent';
import { SUBMISSION_ACCEPTED, submissionSchema, type Submission } from './tools';

/** Task queue of the example's worker and runs: its tools are registered on no other worker. */
export const TEXT_TO_SQL_TASK_QUEUE = 'text-to-sql-example';

/** Retrieve, validate, fix, submit: the order the prompt asks for and the tools make possible. */
export const TEXT_TO_SQL_SYSTEM_PROMPT = [
  'You translate questions about a PostgreSQL database into one read-only SQL query. You never run queries.',
  'Work in this order:',
  '1. Call retrieve_tables with the question to see the relevant tables and their columns. Do not guess names.',
  '2. Write one SELECT statement using only those tables and columns; join through the referenced columns.',
  '3. Call validate_sql with it. If it reports a problem, fix exactly what it names and validate again.',
  '4. When validate_sql returns valid: true, call submit_answer with the query, a short explanation (state any',
  '   assumption you made about the question), and your confidence from 0 to 1. That ends the task.',
  'Only SELECT is allowed: never write INSERT, UPDATE, DELETE or DDL, even if the question asks for it.',
].join('\n');

/**
 * The agent's run config. The run ends with reason `custom` once `submit_answer` accepted a query; the deliverable
 * is that call's observation data (see {@link submissionOf}), not `finalAnswer`.
 */
export const TEXT_TO_SQL_CONFIG = {
  tools: ['retrieve_tables', 'validate_sql', 'submit_answer'],
  systemPrompt: TEXT_TO_SQL_SYSTEM_PROMPT,
  limits: {
    maxCallsPerTool: { retrieve_tables: 3, validate_sql: 4 },
    // Three retrievals, four validations, a submission and a retry of it fit, with room for a rejected thought.
    maxIterations: 12,
  },
  // Only an accepted submission carries this status: `tool_called` would also stop on a refused submission
  // (invalid SQL or arguments), ending the run without a deliverable.
  stopWhen: [{ type: 'observation_contains', tool: 'submit_answer', text: SUBMISSION_ACCEPTED }],
  // The deliverable is the validated submission. A forced final answer would cost a model call after it, and after
  // other stops (max_iterations, stalled) it would be SQL that nothing validated.
  forceFinalAnswer: false,
  // An ambiguous question is answered with the assumption stated in the explanation, not by waiting for a person.
  approvals: { clarification: false },
} satisfies AgentConfig;

/** The accepted submission of a finished run, or null when the run ended without one. */
export function submissionOf(result: Pick<ReActResult, 'trace'>): Submission | null {
  for (const step of [...result.trace.steps].reverse()) {
    if (step.action.type !== 'tool_call' || step.action.tool !== 'submit_answer' || step.isError) continue;
    const data = step.observationData as { status?: unknown } | undefined;
    if (data?.status !== SUBMISSION_ACCEPTED) continue;
    const parsed = submissionSchema.safeParse(data);
    if (parsed.success) return parsed.data;
  }
  return null;
}
