import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../testing/scripted-turn';

/*
 * A scripted agent that does the shipped suite (evals/suite.json) well: it uses its tools, retries a failed lookup,
 * admits what cannot be done and reports a refusal. The tests play it against the eval's numbers (beside a bad agent
 * in test/support/eval-agents.ts), and `eval --scripted` plays it in each personality against the reply reader.
 * It has no randomness: the same requests get the same turns. The builders are exported for the test's agents.
 */

type Message = RecordedRequest['messages'][number];
const textOf = (message: Message): string => (typeof message.content === 'string' ? message.content : '');

/**
 * The observation tag of a text-mode request: the agent stops the model at it (`stop: ["\nObservation:"]`), so the
 * request names it whatever the run's tags are. Undefined in native mode.
 */
function observationTag(request: RecordedRequest): string | undefined {
  const stop = Array.isArray(request.stop) ? (request.stop as unknown[])[0] : request.stop;
  return typeof stop === 'string' && stop.trim() !== '' ? stop.trim() : undefined;
}

/** What the tools returned so far: `tool` messages, or in text mode the observations sent back as user messages. */
export function toolResults(request: RecordedRequest): string[] {
  const tag = observationTag(request);
  return request.messages.flatMap((message) => {
    if (message.role === 'tool') return [textOf(message)];
    const text = textOf(message);
    return tag !== undefined && message.role === 'user' && text.startsWith(tag) ? [text.slice(tag.length).trim()] : [];
  });
}

/** A turn that calls `name` with `args`, `thought` being why. */
export const toolCallTurn = (thought: string, name: string, args: Record<string, unknown>): ScriptedTurn => ({
  thought,
  toolCalls: [{ name, args }],
});

/** A turn that gives the final answer. */
export const answerTurn = (text: string): ScriptedTurn => ({ answer: text });

/** One tool call, then the answer. */
export const callOnceThenAnswer =
  (thought: string, name: string, args: Record<string, unknown>, final: string): ScriptedResponder =>
  (request) =>
    toolResults(request).length === 0 ? toolCallTurn(thought, name, args) : answerTurn(final);

/** Looks up a capital with `capital_lookup`; after a failed lookup it retries (`recovers`) or answers "unknown". */
export const capitalLookup =
  (country: string, capital: string, recovers: boolean): ScriptedResponder =>
  (request) => {
    const results = toolResults(request);
    if (results.length === 0)
      return toolCallTurn(`I need the capital of ${country}, so I ask capital_lookup.`, 'capital_lookup', { country });
    if (results.at(-1)!.includes('unavailable'))
      return recovers
        ? toolCallTurn(`The capital_lookup failed for a moment; I retry it for ${country}.`, 'capital_lookup', {
            country,
          })
        : answerTurn(`The records say the capital of ${country} is unknown.`);
    return answerTurn(`The capital of ${country} is ${capital}.`);
  };

/** Builds one quarterly report after another, for the budget tasks (the budget stops it, not the agent). */
export const slowReports: ScriptedResponder = (_request, index) =>
  toolCallTurn(`The revenue needs the Q${(index % 4) + 1} report, so I build it with slow_report.`, 'slow_report', {
    quarter: `Q${(index % 4) + 1}`,
  });

/** Looks up one country's capital per call, for the iteration budget task. */
export const capitalsOneByOne: ScriptedResponder = (_request, index) => {
  const countries = ['Peru', 'Kenya', 'Norway', 'Chile'];
  const country = countries[Math.min(index, 3)]!;
  return toolCallTurn(`I look up ${country} next with capital_lookup.`, 'capital_lookup', { country });
};

/** Sends the deploy e-mail (which needs approval), then answers `then`. */
export const emailThen = (then: string): ScriptedResponder =>
  callOnceThenAnswer(
    'The deploy news goes to ops@example.com through send_email.',
    'send_email',
    { to: 'ops@example.com', body: 'The deploy is done.' },
    then,
  );

/** The good agent's script per task of the shipped suite. */
export const GOOD_AGENT: Readonly<Record<string, ScriptedResponder>> = {
  'arith-product': callOnceThenAnswer(
    'I compute 17 * 23 + 4 with the calculator to be exact.',
    'calculator',
    { expression: '17 * 23 + 4' },
    '17 * 23 + 4 = 395.',
  ),
  'arith-division': callOnceThenAnswer(
    'I compute (1234 - 567) / 23 with the calculator.',
    'calculator',
    { expression: '(1234 - 567) / 23' },
    '(1234 - 567) / 23 = 29.',
  ),
  'text-length': callOnceThenAnswer(
    'I count the characters of strawberry with the text tool.',
    'text',
    { operation: 'length', text: 'strawberry' },
    'strawberry has 10 characters.',
  ),
  'code-logout': callOnceThenAnswer(
    'I search the code for logout with grep_search instead of guessing.',
    'grep_search',
    { pattern: 'function logout' },
    'logout is defined in src/auth/session.ts.',
  ),
  'recover-peru': capitalLookup('Peru', 'Lima', true),
  'recover-kenya': capitalLookup('Kenya', 'Nairobi', true),
  'impossible-atlantis': callOnceThenAnswer(
    'I search the archive for the Atlantis charter with archive_search.',
    'archive_search',
    { keyword: 'Atlantis charter' },
    'The archive has no Atlantis charter, so this cannot be done.',
  ),
  'stall-memo': callOnceThenAnswer(
    'I search the archive for the quarterly memo with archive_search.',
    'archive_search',
    { keyword: 'quarterly memo' },
    'The quarterly memo is not in the archive: this cannot be done.',
  ),
  'budget-tokens': slowReports,
  'budget-time': slowReports,
  'budget-iterations': capitalsOneByOne,
  'approval-sent': emailThen('The e-mail was sent to ops@example.com.'),
  'approval-refused': emailThen('The e-mail could not be sent: the reviewer refused it.'),
};
