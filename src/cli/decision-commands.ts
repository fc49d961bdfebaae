import { AgentClient } from '../client/agent-client';
import type { AuditEntry, Verification } from '../client/audit';
import { readApprovalKeysFile } from '../common/decision-signing';
import { readEnv } from '../common/env';
import { PENDING_QUERY_TIMEOUT_MS } from '../client/decisions';
import { QueryUnansweredError } from '../client/query';
import { describeCall } from '../shared/observation';
import { cliIdentity, type DECISION_COMMANDS, parseCommandArgs, UsageError } from './args';
import { formatStep } from '../client/trace-printer';
import { lineageLine } from '../client/fork';
import { formatEvent } from '../client/event-printer';
import { visible } from '../common/terminal-text';
import { costReport } from '../shared/cost-report';
import { formatUsd } from '../shared/cost';

type Say = (line: string) => void;

function parse(argv: string[]) {
  return parseCommandArgs(
    argv,
    {
      always: { type: 'boolean', default: false },
      reason: { type: 'string' },
      args: { type: 'string' },
      observation: { type: 'string' },
      json: { type: 'boolean', default: false },
      address: { type: 'string' },
      'args-hash': { type: 'string' },
      after: { type: 'string', default: '0' },
      wait: { type: 'boolean', default: true },
      as: { type: 'string' },
      roles: { type: 'string' },
      by: { type: 'string' },
      verify: { type: 'boolean', default: false },
      keys: { type: 'string' },
    },
    { negative: true }, // --no-wait
  );
}

function required<T>(value: T | undefined, message: string): T {
  if (value === undefined || value === '') throw new UsageError(message);
  return value;
}

function parseEditArgs(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError('--args must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** What an audit line says of a decision's signature: verified (valid, by whom, or why not), or only claimed. */
function signatureText(entry: AuditEntry): string {
  const verification: Verification | undefined = entry.verification;
  if (!verification) return entry.signedWith ? `signed with ${entry.signedWith} (not verified)` : '';
  if (!verification.signed) return 'UNSIGNED';
  if (verification.valid) return `SIGNED by ${verification.approver} (${verification.keyId}): valid`;
  return `SIGNED${verification.keyId ? ` with ${verification.keyId}` : ''}: INVALID (${verification.why})`;
}

/** The verification keys `audit --verify` re-checks signatures with: --keys, else WORKER_APPROVAL_KEYS. */
function verificationKeys(file: string | undefined) {
  const path = file ?? readEnv().approvalKeysFile;
  if (!path) throw new UsageError('audit --verify needs the verification keys: --keys <file> or WORKER_APPROVAL_KEYS');
  // A bad file is a SigningKeyError: one line and exit 2, as main() reports it.
  return readApprovalKeysFile(path);
}

/** One audit line: when, who (and how), what, on which call and arguments, and what the run answered. */
export function formatAuditEntry(entry: AuditEntry): string {
  const { decision, callId, always, reason, args, observation, answer, amount, requestId } = entry.payload;
  const what = [
    typeof decision === 'string' ? decision : entry.message,
    always === true ? '(always)' : '',
    typeof callId === 'string' ? callId : typeof requestId === 'string' ? requestId : '',
  ];
  const applied = entry.result as { tool?: string; args?: unknown } | undefined;
  // A call that will not run (rejected, responded to) has no arguments to show: its tool alone, not `tool()`.
  if (applied?.tool) what.push(applied.args === null ? applied.tool : describeCall(applied.tool, applied.args));
  if (args !== undefined && decision === 'edit' && !applied) what.push(`args ${JSON.stringify(args)}`);
  if (typeof reason === 'string') what.push(`reason: ${reason}`);
  if (typeof observation === 'string') what.push(`observation: ${observation}`);
  if (typeof answer === 'string') what.push(`answer: ${answer}`);
  if (typeof amount === 'number') what.push(`by ${amount}`);
  const outcome = entry.refused ? `REFUSED: ${entry.refused}` : entry.via === 'signal' ? '(signal)' : '';
  // Name, roles and channel are what the sender claimed; the Temporal client identity is what the server saw, so a
  // forged "alice via inbox" from another client reads differently (until approvals are signed).
  const claimed = `${entry.identity ?? 'anonymous'}${entry.roles ? ` [${entry.roles.join(', ')}]` : ''} via ${entry.channel}`;
  const who = entry.sender ? `${claimed} (sent by ${entry.sender})` : claimed;
  return [entry.at, who, what.filter((part) => part !== '').join(' '), outcome, signatureText(entry)]
    .filter((part) => part !== '')
    .join('  ');
}

/** How long `events` waits for a first event before it asks whether any worker serves the run. */
const EVENTS_QUIET_MS = 3_000;

/** Runs one of {@link DECISION_COMMANDS} against --address, else TEMPORAL_ADDRESS, else localhost:7233. */
export async function decisionCommand(
  command: (typeof DECISION_COMMANDS)[number],
  argv: string[],
  out: Say,
  say: Say,
): Promise<number> {
  const { values, positionals } = parse(argv);
  const [workflowId, second, third] = positionals;
  // --address wins over TEMPORAL_ADDRESS: `run` prints it when its server is not the default one.
  const agents = await AgentClient.connect({
    ...(values.address ? { address: values.address } : {}),
    ...cliIdentity(values.as, values.roles),
  });
  try {
    if (command === 'pending') {
      const unreadable: string[] = [];
      const items = await agents.listPending({ onUnreadable: (id) => unreadable.push(id) });
      if (unreadable.length > 0) {
        // On stderr, so `--json` stays one JSON value: these runs wait too, but no worker answered for them.
        say(
          visible(
            `${unreadable.length} waiting run(s) could not be read (no worker answered within ` +
              `${PENDING_QUERY_TIMEOUT_MS / 1000} s): ${unreadable.join(', ')}`,
          ),
        );
      }
      if (values.json) return (out(JSON.stringify(items)), 0);
      if (items.length === 0) return (out('Nothing is waiting for a decision.'), 0);
      for (const item of items) {
        const what =
          item.kind === 'approval'
            ? `${item.reason === 'uncertain_effect' ? 'may have happened: ' : ''}${describeCall(item.tool, item.args)}  (argsHash ${item.argsHash})`
            : item.kind === 'budget'
              ? `budget: ${item.question}`
              : `question: ${item.question}`;
        out(visible(`${item.workflowId}  ${item.callId}  ${what}  deadline ${item.deadline}`));
      }
      return 0;
    }
    const id = required(workflowId, `${command} needs a workflow ID: durable-react-agent ${command} <workflowId>`);
    const run = agents.handle(id);
    // --args-hash (from `pending`) makes the decision about those exact arguments, or refused.
    const hash = values['args-hash'] ? { argsHash: values['args-hash'] } : {};
    switch (command) {
      case 'approve': {
        const applied = await run.decide(second, { decision: 'approve', always: values.always, ...hash });
        // What the run applied, not what was asked: it takes no "always" for a call that may have happened.
        out(
          `approved ${applied.callId} (${applied.tool})${applied.always ? ' and every later call of it in this run' : ''}`,
        );
        if (values.always && !applied.always) {
          say(
            `note: --always not applied: approving ${applied.callId} runs that call again (it may have happened), ` +
              'later calls of the tool still ask',
          );
        }
        return 0;
      }
      case 'reject': {
        const reason = required(values.reason, 'reject needs --reason "<why>": the model sees it');
        const applied = await run.decide(second, { decision: 'reject', reason, ...hash });
        out(`rejected ${applied.callId} (${applied.tool})`);
        return 0;
      }
      case 'edit': {
        const args = parseEditArgs(required(values.args, `edit needs --args '<json object>'`));
        const applied = await run.decide(second, { decision: 'edit', args, ...hash });
        out(`edited ${applied.callId}: ${describeCall(applied.tool, applied.args)}`);
        return 0;
      }
      case 'respond': {
        const observation = required(values.observation, 'respond needs --observation "<text the model sees>"');
        const applied = await run.decide(second, { decision: 'respond', observation, ...hash });
        out(`responded to ${applied.callId} (${applied.tool}) without running it`);
        return 0;
      }
      case 'answer': {
        const question = await run.answer(
          required(second, 'answer needs the text: durable-react-agent answer <workflowId> "<text>" [callId]'),
          third,
        );
        out(`answered: ${question}`);
        return 0;
      }
      case 'trace': {
        const trace = await run.getTrace();
        if (values.json) return (out(JSON.stringify(trace)), 0);
        if (trace.lineage) out(lineageLine(trace.lineage));
        for (const step of trace.steps) out(formatStep(step));
        out(
          `${trace.terminationReason ?? 'running'}: ${trace.totalIterations} iterations, ${trace.totalTokens} tokens` +
            (trace.cost ? `, ${formatUsd(trace.cost.usd)}, ${trace.cost.engineActionsTotal} engine actions` : ''),
        );
        return 0;
      }
      case 'cost': {
        const { cost } = await run.getTrace();
        if (values.json) return (out(JSON.stringify(cost ?? null)), 0);
        if (!cost) return (out(`${id} was recorded by a version that kept no cost ledger`), 0);
        for (const line of costReport(cost)) out(visible(line));
        return 0;
      }
      case 'result': {
        const result = await run.result();
        out(
          values.json
            ? JSON.stringify(result)
            : (result.finalAnswer ?? `(no final answer: ${result.terminationReason})`),
        );
        return 0;
      }
      case 'cancel':
        await run.cancel();
        out(`cancellation requested for ${id}`);
        return 0;
      case 'send': {
        const text = required(second, 'send needs the message: durable-react-agent send <workflowId> "<text>"');
        if (!values.wait) return (out(`queued as turn ${(await run.send(text)).turn}`), 0);
        // Waits for the turn's answer, as `result` does for a run.
        const answer = await run.ask(text);
        out(answer.finalAnswer ?? `(no final answer: ${answer.reason})`);
        return 0;
      }
      case 'raise': {
        // Digits only: Number() would read `0x10` as 16 and `1e3` as 1000. A cost budget is raised in USD, so a
        // decimal is allowed here; the run refuses one for the limits counted in whole numbers.
        const amount = values.by === undefined ? undefined : /^\d+(\.\d+)?$/.test(values.by) ? Number(values.by) : NaN;
        if (amount !== undefined && !(amount > 0))
          throw new UsageError(`--by expects a number above 0 (USD may have decimals), got "${values.by}"`);
        const applied = await run.raiseBudget(amount, second);
        out(`raised the ${applied.limit} limit of ${id} by ${applied.amount} to ${applied.newLimit}`);
        return 0;
      }
      case 'stop': {
        const applied = await run.stopAtBudget(second);
        out(`${id} stops at its ${applied.limit} limit`);
        return 0;
      }
      case 'audit': {
        const verify = values.verify ? { verify: verificationKeys(values.keys) } : {};
        const entries = await run.audit(verify);
        if (values.json) return (out(JSON.stringify(entries)), 0);
        if (entries.length === 0) out(`Nobody decided anything in ${id}.`);
        for (const entry of entries) out(formatAuditEntry(entry));
        return 0;
      }
      case 'events': {
        const after = Number(values.after);
        if (!Number.isSafeInteger(after) || after < 0)
          throw new UsageError(`--after expects a seq >= 0, got "${values.after}"`);
        // Follows the run live until its last event; --json prints each event as one JSON line. A run no worker
        // serves has no events to give: said on stderr within seconds, in trace's words, while the follow goes on
        // (a worker may yet start; Ctrl-C ends it).
        let heard = false;
        const quiet = setTimeout(() => {
          agents
            .handle(id)
            .getStatus()
            .then(
              () => undefined,
              (error: unknown) => {
                if (!heard && error instanceof QueryUnansweredError)
                  say(`${visible(error.message)}; waiting for its events (Ctrl-C to stop)`);
              },
            );
        }, EVENTS_QUIET_MS);
        try {
          for await (const event of run.events({ after })) {
            heard = true;
            const line = values.json ? JSON.stringify(event) : formatEvent(event);
            if (line !== undefined) out(values.json ? line : `#${event.seq} ${line.trimStart()}`);
          }
        } finally {
          clearTimeout(quiet);
        }
        return 0;
      }
    }
  } finally {
    await agents.close();
  }
  return 0;
}
