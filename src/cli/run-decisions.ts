import { createInterface } from 'node:readline/promises';
import type { AgentClient } from '../client/agent-client';
import { DecisionRefusedError, type PendingItem } from '../client/decisions';
import { describeCall } from '../shared/observation';
import { promptDecision, type Asker } from './decision-prompt';
import { errorMessage } from '../shared/errors';

type Say = (line: string) => void;

/** Prints how to decide from another terminal (or the Temporal UI) without prompting. */
function printHint(item: PendingItem, runId: string, say: Say, address: string | undefined): void {
  // A server of `run`'s own on another port is not where the other terminal would look: name it.
  const at = address === undefined ? '' : ` --address ${address}`;
  const verb = (command: string): string => `durable-react-agent ${command}${at}`;
  const where = item.workflowId === runId ? '' : ` in subagent run ${item.workflowId}`;
  if (item.kind === 'question') {
    say(`The agent asks${where} (${item.callId}): ${item.question}`);
    say(`  answer with: ${verb('answer')} ${item.workflowId} "<text>"`);
    return;
  }
  if (item.kind === 'budget') {
    say(`The run${where} asks (${item.requestId}): ${item.question} (${item.detail}; deadline ${item.deadline})`);
    say(`  ${verb('raise')} ${item.workflowId} [--by N]   |   ${verb('stop')} ${item.workflowId}`);
    return;
  }
  say(
    `Waiting for a decision on ${item.callId}${where}: ${describeCall(item.tool, item.args)}  (deadline ${item.deadline})`,
  );
  say(`  ${verb('approve')} ${item.workflowId} ${item.callId} [--always]`);
  say(
    `  ${verb('reject')} ${item.workflowId} ${item.callId} --reason "<why>"   |   edit ... --args '<json>'   |   respond ... --observation "<text>"`,
  );
}

/**
 * What `run` does when its run, or a subagent it started, waits for a person: on a terminal it asks (and re-asks
 * after a refused edit); otherwise it prints the commands that decide from elsewhere. Each decision goes to the run
 * that waits for it.
 */
export function createRunDecisions(
  agents: AgentClient,
  runId: string,
  interactive: boolean,
  say: Say,
  address?: string,
  terminal?: Asker,
) {
  // `terminal` replaces the prompt on stdin (tests script what a person types).
  const readline = interactive && !terminal ? createInterface({ input: process.stdin, output: process.stderr }) : null;
  const rl: Asker | null = interactive ? (terminal ?? readline) : null;
  return {
    async handle(item: PendingItem): Promise<void> {
      if (!rl) return printHint(item, runId, say, address);
      const where = item.workflowId === runId ? '' : ` (subagent run ${item.workflowId})`;
      if (item.kind === 'question') {
        const text = (await rl.question(`\nThe agent asks${where}: ${item.question}\n> `)).trim();
        await agents.handle(item.workflowId).answer(text || '(no answer)', item.callId);
        return;
      }
      if (item.kind === 'budget') {
        const text = (await rl.question(`\n${item.question}${where} [y, n or an amount] `)).trim().toLowerCase();
        const amount = Number(text);
        if (text === 'n' || text === 'no') await agents.handle(item.workflowId).stopAtBudget(item.requestId);
        else {
          // A cost budget's raise may have decimals (USD); the others' must be whole, as the run checks.
          const valid = amount > 0 && (item.unit === 'USD' || Number.isInteger(amount));
          await agents.handle(item.workflowId).raiseBudget(valid ? amount : undefined);
        }
        return;
      }
      if (where) say(`\nA subagent is waiting${where}.`);
      for (;;) {
        const body = await promptDecision(rl, item, say);
        try {
          await agents.handle(item.workflowId).decide(item.callId, body);
          return;
        } catch (error) {
          say(errorMessage(error));
          // A refused edit leaves the call pending: ask again. Anything else (decided elsewhere, run over): stop.
          if (!(error instanceof DecisionRefusedError) || error.reason !== 'invalid_edit') return;
        }
      }
    },
    close(): void {
      readline?.close();
    },
  };
}
