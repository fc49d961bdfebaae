import { z } from 'zod';
import { defineTool } from 'durable-react-agent';
import type { AnyToolDefinition } from 'durable-react-agent/worker';
import type { DatabaseSchema } from './schema';
import { SqlValidationError, validateSql, type SqlValidation } from './sql-validator';
import { retrieveTables } from './table-retrieval';

/** Tables `retrieve_tables` returns when the model asks for no particular number. */
export const DEFAULT_RETRIEVAL_LIMIT = 3;
/** Longest SQL the tools accept; a text-to-SQL answer is one query, not a migration script. */
export const MAX_SQL_LENGTH = 10_000;
/**
 * The `status` of an accepted submission. Error observations never contain it (they start with `[error]` and echo
 * the arguments), so the agent's stop condition can match it to end the run on a successful submission only.
 */
export const SUBMISSION_ACCEPTED = 'answer_submitted';

const sql = z.string().min(1).max(MAX_SQL_LENGTH);

/** Arguments of `submit_answer`, and the shape of the submission it returns (plus `status`). */
export const submissionSchema = z.object({
  query: sql.describe('The final SELECT statement, exactly as validated.'),
  explanation: z.string().min(1).describe('How the query answers the question, and any assumption you made.'),
  confidence: z.number().min(0).max(1).describe('How sure you are that the query answers the question, from 0 to 1.'),
});

/** The agent's deliverable: a validated query, how it answers the question, and how sure the model is. */
export type Submission = z.output<typeof submissionSchema>;

/** Throws the problems of an invalid query as a SqlValidationError (the model sees its message) or returns the verdict. */
function assertValid(query: string, schema: DatabaseSchema, context?: string): Extract<SqlValidation, { valid: true }> {
  const verdict = validateSql(query, schema);
  if (!verdict.valid) throw new SqlValidationError(verdict.problems, context);
  return verdict;
}

/** The three tools of the text-to-SQL agent, bound to one database schema: retrieve, validate, submit. */
export function createTextToSqlTools(schema: DatabaseSchema): AnyToolDefinition[] {
  const tableCount = schema.tables.length;
  return [
    defineTool({
      name: 'retrieve_tables',
      description:
        'Find the tables relevant to a question: keyword search over table and column names and descriptions. ' +
        'Returns the best tables with every column (type, meaning, and the column a foreign key references).',
      category: 'sql',
      schema: z.object({
        question: z.string().min(1).max(2000).describe('The question, or the keywords you need tables for.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(Math.max(1, tableCount))
          .optional()
          .describe(`How many tables (default ${DEFAULT_RETRIEVAL_LIMIT}).`),
      }),
      examples: [{ question: 'revenue per product category' }, { question: 'customers by country', limit: 2 }],
      handler: ({ question, limit }) => ({ ...retrieveTables(question, schema, limit ?? DEFAULT_RETRIEVAL_LIMIT) }),
    }),
    defineTool({
      name: 'validate_sql',
      description:
        'Check a PostgreSQL query without running it: parses it and checks every table and column against the schema. ' +
        'Only a single SELECT is allowed. Returns {valid: true, tables, columns} or an error saying what to fix.',
      category: 'sql',
      schema: z.object({ sql: sql.describe('One SELECT statement.') }),
      examples: [{ sql: 'SELECT c.country, COUNT(*) FROM customers c GROUP BY c.country' }],
      handler: ({ sql: query }) => ({ ...assertValid(query, schema) }),
    }),
    defineTool({
      name: 'submit_answer',
      description:
        'Submit the final SQL query once validate_sql accepted it; this ends the task. ' +
        'The query is validated again and refused if it has problems.',
      category: 'sql',
      schema: submissionSchema,
      examples: [{ query: 'SELECT COUNT(*) FROM orders', explanation: 'Counts every order.', confidence: 0.9 }],
      // Validating again keeps the deliverable trustworthy even when the model skipped validate_sql.
      handler: ({ query, explanation, confidence }) => {
        assertValid(query, schema, 'not submitted, fix the query first');
        return { status: SUBMISSION_ACCEPTED, query, explanation, confidence };
      },
    }),
  ];
}
