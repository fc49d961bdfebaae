import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import {
  answerTurn,
  callOnceThenAnswer,
  capitalLookup,
  capitalsOneByOne,
  emailThen,
  slowReports,
  toolCallTurn,
  toolResults,
} from '../../src/eval/scripted-agent';

/*
 * Scripted agents for the eval suites. The good one for the default suite (evals/suite.json) ships with the CLI
 * (`eval --scripted`); the bad one ignores errors, misreports, wanders and writes thoughts that have nothing to do
 * with its actions. The eval's numbers must tell them apart.
 */

export { GOOD_AGENT } from '../../src/eval/scripted-agent';

const OFF_TOPIC = 'Nice weather today, and I keep thinking about my lunch plans for later on.';
const calls = (request: RecordedRequest) => toolResults(request).length;

/** Calls tools that do not help for a while, then answers (right, but in many iterations). */
const dither =
  (name: string, args: Record<string, unknown>, final: string): ScriptedResponder =>
  (request, index) =>
    index < 6
      ? toolCallTurn(OFF_TOPIC, 'calculator', { expression: `${index} + 1` })
      : calls(request) < 7
        ? toolCallTurn(OFF_TOPIC, name, args)
        : answerTurn(final);

/** The bad agent's script per task. */
export const BAD_AGENT: Record<string, ScriptedResponder> = {
  // Wanders: new arguments each time, so no stall, until the iteration cap.
  'arith-product': (_request, index) => toolCallTurn(OFF_TOPIC, 'calculator', { expression: `${index} * 2` }),
  'arith-division': () => answerTurn('(1234 - 567) / 23 is about 31.'),
  'text-length': dither('text', { operation: 'length', text: 'strawberry' }, 'strawberry has 10 characters.'),
  'code-logout': () => answerTurn('logout is defined in src/utils/strings.ts.'),
  'recover-peru': capitalLookup('Peru', 'Lima', false),
  'recover-kenya': capitalLookup('Kenya', 'Nairobi', false),
  'impossible-atlantis': callOnceThenAnswer(
    OFF_TOPIC,
    'archive_search',
    { keyword: 'Atlantis' },
    'The Atlantis charter was signed in 9600 BC.',
  ),
  'stall-memo': () => toolCallTurn(OFF_TOPIC, 'archive_search', { keyword: 'quarterly memo' }),
  'budget-tokens': slowReports,
  'budget-time': slowReports,
  'budget-iterations': capitalsOneByOne,
  'approval-sent': dither('send_email', { to: 'ops@example.com', body: 'The deploy is done.' }, 'The e-mail was sent.'),
  'approval-refused': emailThen('The e-mail was sent to ops@example.com.'),
};

/** A good agent for evals/text-to-sql.json: tables first, then a validated query, then the submission. */
const sqlAgent =
  (sql: string): ScriptedResponder =>
  (request) => {
    const done = calls(request);
    if (done === 0)
      return toolCallTurn(
        'The schema is unknown to me, so retrieve_tables finds the tables first.',
        'retrieve_tables',
        {
          question: 'customers orders',
        },
      );
    if (done === 1)
      return toolCallTurn('These tables hold the columns I need; validate_sql checks my query.', 'validate_sql', {
        sql,
      });
    return toolCallTurn('validate_sql accepted the query, so I submit_answer with it.', 'submit_answer', {
      query: sql,
      explanation: 'Joins customers to orders.',
      confidence: 0.8,
    });
  };

/** The good agent for the text-to-SQL suite. */
export const GOOD_SQL_AGENT: Record<string, ScriptedResponder> = {
  'sql-top-customers': sqlAgent(
    "SELECT c.name, SUM(o.total) AS spent FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid' GROUP BY c.name ORDER BY spent DESC LIMIT 5",
  ),
  'sql-orders-per-country': sqlAgent(
    'SELECT c.country, COUNT(*) AS orders FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.country',
  ),
};
