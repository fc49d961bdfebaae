import type { DecisionBody } from '../client/agent-client';
import type { PendingCall } from '../shared/approvals';
import { describeCall } from '../shared/observation';

/** The one thing the prompt needs from readline, so tests can script the answers. */
export interface Asker {
  question(prompt: string): Promise<string>;
}

const CHOICES = '[a]pprove, [A]lways approve this tool, [r]eject, [e]dit arguments, re[s]pond instead';

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
  say(
    `\nThe agent wants to run ${describeCall(call.tool, call.args, 500)}  (call ${call.callId}, deadline ${call.deadline})`,
  );
  for (;;) {
    const choice = (await ask.question(`${CHOICES}? `)).trim();
    switch (choice) {
      // An empty line is not a decision: a stray Enter must not run a tool that waits for approval.
      case 'a':
        return { decision: 'approve' };
      case 'A':
        return { decision: 'approve', always: true };
      case 'r':
        return { decision: 'reject', reason: await askNonEmpty(ask, 'Reason (the agent sees it): ') };
      case 'e':
        return { decision: 'edit', args: await askJsonObject(ask, say) };
      case 's':
        return { decision: 'respond', observation: await askNonEmpty(ask, 'Observation to give the agent instead: ') };
      default:
        say(`Please type a, A, r, e or s.`);
    }
  }
}
