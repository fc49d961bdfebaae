import type { DecisionBody } from '../client/agent-client';
import type { PendingCall } from '../shared/approvals';
import { describeCall } from '../shared/observation';

/** The one thing the prompt needs from readline, so tests can script the answers. */
export interface Asker {
  question(prompt: string): Promise<string>;
}

const CHOICES =
  '[a]pprove or yes, [A]lways approve this tool, [r]eject or no, [e]dit arguments, re[s]pond instead, or say why not';

/** What one line typed at the prompt means. */
export type Choice =
  | { kind: 'approve' | 'always' | 'reject' | 'edit' | 'respond' }
  /** Free text: a rejection whose reason (what the model reads) is the text as typed. */
  | { kind: 'reject_because'; reason: string }
  /** Nothing, one word that is no command (a typo must not decide anything), or words that seem to approve. */
  | { kind: 'unknown'; hint: string };

type Command = 'approve' | 'always' | 'reject' | 'edit' | 'respond';

/** Words for each command, compared in lower case; `A` alone is the one choice whose case matters. */
const WORDS: ReadonlyMap<string, Command> = new Map([
  ['a', 'approve'],
  ['y', 'approve'],
  ['yes', 'approve'],
  ['approve', 'approve'],
  ['always', 'always'],
  ['r', 'reject'],
  ['n', 'reject'],
  ['no', 'reject'],
  ['reject', 'reject'],
  ['e', 'edit'],
  ['edit', 'edit'],
  ['s', 'respond'],
  ['respond', 'respond'],
]);

/** What the prompt says to a line it cannot read. */
export const UNKNOWN_CHOICE = 'Please type a (yes), A, r (no), e or s, or a few words saying why not (a rejection).';
/** What it says to words that begin as an approval: free text rejects, so such a line must not be taken as one. */
export const APPROVAL_WITH_WORDS =
  'To approve, type yes (or a) alone; words after it would reject the call. To change the arguments, type e.';

/**
 * Reads one line of the prompt. Commands as the letters show, plus the resume vocabulary people type: `yes`/`y`
 * approve, `no`/`n` reject (the reason is asked next), in any case, except that `A` is "always" and `a` is "approve".
 * Two or more words that are no command are a rejection with those words as the reason, which the model reads, so
 * only a command ever runs the tool; words that begin with an approval ("yes, but to alice") are asked again.
 */
export function readChoice(line: string): Choice {
  const text = line.trim();
  if (text === 'A') return { kind: 'always' };
  const command = WORDS.get(text.toLowerCase());
  if (command) return { kind: command };
  if (!/\s/.test(text)) return { kind: 'unknown', hint: UNKNOWN_CHOICE };
  const first = (/^[a-z]+/i.exec(text)?.[0] ?? '').toLowerCase();
  const firstCommand = WORDS.get(first);
  if (firstCommand === 'approve' || firstCommand === 'always') return { kind: 'unknown', hint: APPROVAL_WITH_WORDS };
  return { kind: 'reject_because', reason: text };
}

async function askJsonObject(ask: Asker, say: (line: string) => void): Promise<Record<string, unknown>> {
  for (;;) {
    const text = await ask.question('New arguments (one JSON object): ');
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
      say('That is JSON but not an object; try again.');
    } catch (error) {
      say(`Not valid JSON (${(error as Error).message}); try again.`);
    }
  }
}

async function askNonEmpty(ask: Asker, prompt: string): Promise<string> {
  for (;;) {
    const text = (await ask.question(prompt)).trim();
    if (text !== '') return text;
  }
}

/** Shows a pending call and asks what to do until the answer is usable. */
export async function promptDecision(
  ask: Asker,
  call: PendingCall,
  say: (line: string) => void,
): Promise<DecisionBody> {
  const where = `(call ${call.callId}, deadline ${call.deadline})`;
  if (call.reason === 'uncertain_effect') {
    // The same choices, read for a call that already ran: approve runs it again, respond gives its result, reject skips.
    const detail = call.detail !== undefined ? `; the tool says: ${call.detail}` : '';
    say(`\n${call.question}  ${where}${detail}`);
    say('Approve runs it again, respond treats it as done with the result you type, reject skips it.');
  } else {
    say(`\nThe agent wants to run ${describeCall(call.tool, call.args, 500)}  ${where}`);
  }
  for (;;) {
    const choice = readChoice(await ask.question(`${CHOICES}? `));
    switch (choice.kind) {
      case 'approve':
        return { decision: 'approve' };
      case 'always':
        return { decision: 'approve', always: true };
      case 'reject':
        return { decision: 'reject', reason: await askNonEmpty(ask, 'Reason (the agent sees it): ') };
      case 'reject_because':
        say('Rejected; the agent reads your words as the reason.');
        return { decision: 'reject', reason: choice.reason };
      case 'edit':
        return { decision: 'edit', args: await askJsonObject(ask, say) };
      case 'respond':
        return { decision: 'respond', observation: await askNonEmpty(ask, 'Observation to give the agent instead: ') };
      // An empty line or a typo is not a decision: a stray Enter must not run a tool that waits for approval.
      case 'unknown':
        say(choice.hint);
    }
  }
}
