import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../../src/testing/scripted-model';

/*
 * Two scripted agents for the default eval suite (evals/suite.json). The good one uses its tools, retries a failed
 * lookup, admits what cannot be done and reports a refusal; the bad one ignores errors, misreports, wanders and
 * writes thoughts that have nothing to do with its actions. The eval's numbers must tell them apart.
 */

type Messages = Array<{ role: string; content: string | null }>;
const toolResults = (request: RecordedRequest) =>
  (request.messages as Messages).filter((message) => message.role === 'tool').map((message) => message.content ?? '');
const lastResult = (request: RecordedRequest) => toolResults(request).at(-1) ?? '';
const calls = (request: RecordedRequest) => toolResults(request).length;

const use = (thought: string, name: string, args: Record<string, unknown>): ScriptedTurn => ({
  thought,
  toolCalls: [{ name, args }],
});
const answer = (text: string): ScriptedTurn => ({ answer: text });
const OFF_TOPIC = 'Nice weather today, and I keep thinking about my lunch plans for later on.';

/** One tool call, then the answer. */
const once =
  (thought: string, name: string, args: Record<string, unknown>, final: string): ScriptedResponder =>
  (request) =>
    calls(request) === 0 ? use(thought, name, args) : answer(final);

const lookup =
  (country: string, capital: string, recovers: boolean): ScriptedResponder =>
  (request) => {
    if (calls(request) === 0)
      return use(`I need the capital of ${country}, so I ask capital_lookup.`, 'capital_lookup', { country });
    if (lastResult(request).includes('unavailable'))
      return recovers
        ? use(`The capital_lookup failed for a moment; I retry it for ${country}.`, 'capital_lookup', { country })
        : answer(`The records say the capital of ${country} is unknown.`);
    return answer(`The capital of ${country} is ${capital}.`);
  };

const slowReports: ScriptedResponder = (_request, index) =>
  use(`The revenue needs the Q${(index % 4) + 1} report, so I build it with slow_report.`, 'slow_report', {
    quarter: `Q${(index % 4) + 1}`,
  });
const capitals: ScriptedResponder = (request, index) => {
  const countries = ['Peru', 'Kenya', 'Norway', 'Chile'];
  const country = countries[Math.min(index, 3)]!;
  return use(`I look up ${country} next with capital_lookup.`, 'capital_lookup', { country });
};
const email = (then: string): ScriptedResponder =>
  once(
    'The deploy news goes to ops@example.com through send_email.',
    'send_email',
    { to: 'ops@example.com', body: 'The deploy is done.' },
    then,
  );

/** The good agent's script per task. */
export const GOOD_AGENT: Record<string, ScriptedResponder> = {
  'arith-product': once(
    'I compute 17 * 23 + 4 with the calculator to be exact.',
    'calculator',
    { expression: '17 * 23 + 4' },
    '17 * 23 + 4 = 395.',
  ),
  'arith-division': once(
    'I compute (1234 - 567) / 23 with the calculator.',
    'calculator',
    { expression: '(1234 - 567) / 23' },
    '(1234 - 567) / 23 = 29.',
  ),
  'text-length': once(
    'I count the characters of strawberry with the text tool.',
    'text',
    { operation: 'length', text: 'strawberry' },
    'strawberry has 10 characters.',
  ),
  'code-logout': once(
    'I search the code for logout with grep_search instead of guessing.',
    'grep_search',
    { pattern: 'function logout' },
    'logout is defined in src/auth/session.ts.',
  ),
  'recover-peru': lookup('Peru', 'Lima', true),
  'recover-kenya': lookup('Kenya', 'Nairobi', true),
  'impossible-atlantis': once(
    'I search the archive for the Atlantis charter with archive_search.',
    'archive_search',
    { keyword: 'Atlantis charter' },
    'The archive has no Atlantis charter, so this cannot be done.',
  ),
  'stall-memo': once(
    'I search the archive for the quarterly memo with archive_search.',
    'archive_search',
    { keyword: 'quarterly memo' },
    'The quarterly memo is not in the archive: this cannot be done.',
  ),
  'budget-tokens': slowReports,
  'budget-time': slowReports,
  'budget-iterations': capitals,
  'approval-sent': email('The e-mail was sent to ops@example.com.'),
  'approval-refused': email('The e-mail could not be sent: the reviewer refused it.'),
};

/** Calls tools that do not help for a while, then answers (right, but in many iterations). */
const dither =
  (name: string, args: Record<string, unknown>, final: string): ScriptedResponder =>
  (request, index) =>
    index < 6
      ? use(OFF_TOPIC, 'calculator', { expression: `${index} + 1` })
      : calls(request) < 7
        ? use(OFF_TOPIC, name, args)
        : answer(final);

/** The bad agent's script per task. */
export const BAD_AGENT: Record<string, ScriptedResponder> = {
  // Wanders: new arguments each time, so no stall, until the iteration cap.
  'arith-product': (_request, index) => use(OFF_TOPIC, 'calculator', { expression: `${index} * 2` }),
  'arith-division': () => answer('(1234 - 567) / 23 is about 31.'),
  'text-length': dither('text', { operation: 'length', text: 'strawberry' }, 'strawberry has 10 characters.'),
  'code-logout': () => answer('logout is defined in src/utils/strings.ts.'),
  'recover-peru': lookup('Peru', 'Lima', false),
  'recover-kenya': lookup('Kenya', 'Nairobi', false),
  'impossible-atlantis': once(
    OFF_TOPIC,
    'archive_search',
    { keyword: 'Atlantis' },
    'The Atlantis charter was signed in 9600 BC.',
  ),
  'stall-memo': () => use(OFF_TOPIC, 'archive_search', { keyword: 'quarterly memo' }),
  'budget-tokens': slowReports,
  'budget-time': slowReports,
  'budget-iterations': capitals,
  'approval-sent': dither('send_email', { to: 'ops@example.com', body: 'The deploy is done.' }, 'The e-mail was sent.'),
  'approval-refused': email('The e-mail was sent to ops@example.com.'),
};

/** A good agent for evals/text-to-sql.json: tables first, then a validated query, then the submission. */
const sqlAgent =
  (sql: string): ScriptedResponder =>
  (request) => {
    const done = calls(request);
    if (done === 0)
      return use('The schema is unknown to me, so retrieve_tables finds the tables first.', 'retrieve_tables', {
        question: 'customers orders',
      });
    if (done === 1)
      return use('These tables hold the columns I need; validate_sql checks my query.', 'validate_sql', { sql });
    return use('validate_sql accepted the query, so I submit_answer with it.', 'submit_answer', {
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
