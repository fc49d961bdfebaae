import { createInterface } from 'node:readline/promises';
import type { AgentClient } from '../client/agent-client';
import { DecisionRefusedError } from '../client/decisions';
import { describeCall } from '../shared/observation';
import { promptDecision } from './decision-prompt';
import type { NewPending } from './pending-watcher';

type Say = (line: string) => void;

/** Prints how to decide from another terminal (or the Temporal UI) without prompting. */
function printHint(item: NewPending, workflowId: string, say: Say, address: string | undefined): void {
  // A server of `run`'s own on another port is not where the other terminal would look: name it.
  const at = address === undefined ? '' : ` --address ${address}`;
  const verb = (command: string): string => `durable-react-agent ${command}${at}`;
  if (item.kind === 'question') {
    say(`The agent asks (${item.question.callId}): ${item.question.question}`);
    say(`  answer with: ${verb('answer')} ${workflowId} "<text>"`);
    return;
  }
  const { call } = item;
  say(`Waiting for a decision on ${call.callId}: ${describeCall(call.tool, call.args)}  (deadline ${call.deadline})`);
  say(`  ${verb('approve')} ${workflowId} ${call.callId} [--always]`);
  say(`  ${verb('reject')} ${workflowId} ${call.callId} --reason "<why>"   |   edit ... --args '<json>'   |   respond ... --observation "<text>"`);
}

/**
 * What `run` does when its run waits for a person: on a terminal it asks (and re-asks after a refused edit);
 * otherwise it prints the commands that decide from elsewhere.
 */
export function createRunDecisions(agents: AgentClient, workflowId: string, interactive: boolean, say: Say, address?: string) {
  const rl = interactive ? createInterface({ input: process.stdin, output: process.stderr }) : null;
  return {
    async handle(item: NewPending): Promise<void> {
      if (!rl) return printHint(item, workflowId, say, address);
      if (item.kind === 'question') {
        const text = (await rl.question(`\nThe agent asks: ${item.question.question}\n> `)).trim();
        await agents.answer(workflowId, text || '(no answer)', item.question.callId);
        return;
      }
      for (;;) {
        const body = await promptDecision(rl, item.call, say);
        try {
          await agents.decide(workflowId, item.call.callId, body);
          return;
        } catch (error) {
          say(error instanceof Error ? error.message : String(error));
          // A refused edit leaves the call pending: ask again. Anything else (decided elsewhere, run over): stop.
          if (!(error instanceof DecisionRefusedError) || error.reason !== 'invalid_edit') return;
        }
      }
    },
    close(): void {
      rl?.close();
    },
  };
}
