import {
  ApplicationFailure,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type UpdateDefinition,
  type WorkflowHandle,
} from '@temporalio/client';
import type {
  AppliedDecision,
  Decision,
  PendingCall,
  PendingDecisions,
  PendingQuestion,
  RefusalReason,
} from '../shared/approvals';
import type { AppliedBudgetDecision, BudgetDecision, PendingBudget } from '../shared/budget';
import { answerUpdate, decideBudgetUpdate, decideUpdate, getPendingQuery } from '../shared/messages';
import { AgentPendingToolsKey, AgentStatusKey, PENDING_MEMO_KEY } from '../shared/search-attributes';
import type { Channel } from '../shared/identity';
import { causeMessages, DecisionRefusedError } from './errors';
import { queryRun } from './query';
import { signDecision, type DecisionSigner } from '../common/decision-signing';
import { errorMessage } from '../shared/errors';

// Defined with the other client errors; re-exported where the decision functions that throw it live.
export { DecisionRefusedError };

/** One thing a person can act on: a call to approve or a question to answer, with the run it belongs to. */
export type PendingItem =
  | ({ kind: 'approval'; workflowId: string } & PendingCall)
  | ({ kind: 'question'; workflowId: string } & PendingQuestion)
  | ({ kind: 'budget'; workflowId: string; callId: string } & PendingBudget);

/** A run's pending calls and question as items tagged with the run. */
function itemsOf(workflowId: string, pending: PendingDecisions): PendingItem[] {
  const items: PendingItem[] = pending.approvals.map((call) => ({ kind: 'approval', workflowId, ...call }));
  if (pending.question) items.push({ kind: 'question', workflowId, ...pending.question });
  // `callId` too, so every item has one key a list can use.
  if (pending.budget) items.push({ kind: 'budget', workflowId, callId: pending.budget.requestId, ...pending.budget });
  return items;
}

/**
 * How long listing waits for one run's answer. A query needs a worker: a run whose worker is gone (a Ctrl-C'd `run`
 * with its own task queue) never answers, and used to hold every listing, and so every reviewer, for ever.
 */
export const PENDING_QUERY_TIMEOUT_MS = 5_000;
/** Runs asked at once while listing. */
const PENDING_QUERIES_AT_ONCE = 8;

/** Options of {@link listPending}. */
export interface ListPendingOptions {
  /** Told of each waiting run that could not be read (no worker answered in time); its items are left out. */
  onUnreadable?: (workflowId: string, reason: string) => void;
  /**
   * Runs read by an earlier listing: a run whose visibility record (status, pending tools, the memo's pending IDs) has
   * not changed is not queried again. Give the same map to every listing (the inbox does).
   */
  cache?: PendingCache;
}

/**
 * What {@link listPending} remembers of each waiting run between listings, by workflow ID: its items, or
 * (`unreadable`) why it could not be read and how many listings in a row could not.
 */
export type PendingCache = Map<
  string,
  { key: string; at: number; items: PendingItem[]; exact: boolean; unreadable?: { reason: string; failures: number } }
>;

/**
 * Longest a run that could not be read goes unasked while its visibility record stays the same. Its query waits out
 * {@link PENDING_QUERY_TIMEOUT_MS}, so asking again at every listing made each listing wait for every run whose worker
 * was gone (25 such runs made each listing take 16 s). The pause starts at that timeout and doubles with each failure
 * in a row up to this bound, so a query that failed once by chance hides its run for seconds, not a minute. A run that
 * moves on changes its record and is asked at once; a worker that comes back for a run that stays put is noticed
 * within the pause.
 */
export const UNREADABLE_RETRY_MS = 60_000;

/** The pause after `failures` failed queries in a row (see {@link UNREADABLE_RETRY_MS}). */
function unreadablePauseMs(failures: number): number {
  return Math.min(UNREADABLE_RETRY_MS, PENDING_QUERY_TIMEOUT_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * How long a run's items are taken from the cache while its visibility record stays the same. A query replays a run
 * that is not in a worker's cache: asking all of 1,000 waiting runs every second kept a worker core busy. Runs name their pending items in the memo, so an unchanged record means unchanged items; a record without
 * them (a run of another workflow) stays as it was when one pending call is replaced by another of the same tool:
 * the bound keeps such a change from being missed for longer.
 */
export const PENDING_CACHE_MS = 30_000;

/**
 * Every pending approval and question across running agents (visibility query on AgentStatus, then getPending), in
 * the visibility order. Each run gets {@link PENDING_QUERY_TIMEOUT_MS} to answer; the others are still listed.
 */
export async function listPending(client: Client, options: ListPendingOptions = {}): Promise<PendingItem[]> {
  const query = `${AgentStatusKey.name} IN ('AwaitingApproval', 'AwaitingInput') AND ExecutionStatus = 'Running'`;
  const ids: string[] = [];
  const keys = new Map<string, string>();
  const exact = new Set<string>();
  for await (const execution of client.workflow.list({ query })) {
    ids.push(execution.workflowId);
    // What visibility says of the run: its status, pending tools and the pending items' IDs in the memo.
    // Running runs' history length is not kept up to date there, and attribute order varies from call to call.
    const { runId, searchAttributes, memo } = execution;
    const attribute = (name: string) => JSON.stringify(searchAttributes[name] ?? null);
    if (memo?.[PENDING_MEMO_KEY] !== undefined) exact.add(execution.workflowId);
    keys.set(
      execution.workflowId,
      [
        runId,
        attribute(AgentStatusKey.name),
        attribute(AgentPendingToolsKey.name),
        JSON.stringify(memo?.[PENDING_MEMO_KEY] ?? null),
      ].join('|'),
    );
  }
  const found = new Map<string, PendingItem[]>();
  const { cache } = options;
  const now = Date.now();
  const skipped = new Set<string>();
  if (cache) {
    for (const [workflowId, entry] of cache) {
      if (!keys.has(workflowId))
        cache.delete(workflowId); // no longer waiting
      else if (entry.key !== keys.get(workflowId)) continue;
      else if (entry.unreadable) {
        const pauseMs = unreadablePauseMs(entry.unreadable.failures);
        if (now - entry.at >= pauseMs) continue;
        skipped.add(workflowId);
        const again = Math.ceil((entry.at + pauseMs - now) / 1000);
        options.onUnreadable?.(
          workflowId,
          `${entry.unreadable.reason} (asked again in ${again} s, or as soon as the run moves on)`,
        );
      }
      // A run naming its pending items in the memo is read again when they change, and only then.
      else if (entry.exact || now - entry.at < PENDING_CACHE_MS) found.set(workflowId, entry.items);
    }
  }
  let next = 0;
  const readRuns = async () => {
    for (let index = next++; index < ids.length; index = next++) {
      const workflowId = ids[index]!;
      if (found.has(workflowId) || skipped.has(workflowId)) continue;
      try {
        const deadline = Date.now() + PENDING_QUERY_TIMEOUT_MS;
        const handle = client.workflow.getHandle(workflowId);
        const pending = await client.connection.withDeadline(deadline, () => queryRun(handle, getPendingQuery));
        const items = itemsOf(workflowId, pending);
        found.set(workflowId, items);
        cache?.set(workflowId, { key: keys.get(workflowId)!, at: Date.now(), items, exact: exact.has(workflowId) });
      } catch (error) {
        // Also a run that finished between the list and the query: it has nothing pending any more.
        const reason = errorMessage(error);
        options.onUnreadable?.(workflowId, reason);
        const key = keys.get(workflowId)!;
        const before = cache?.get(workflowId);
        const failures = before?.unreadable && before.key === key ? before.unreadable.failures + 1 : 1;
        cache?.set(workflowId, { key, at: Date.now(), items: [], exact: false, unreadable: { reason, failures } });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PENDING_QUERIES_AT_ONCE, ids.length) }, readRuns));
  return ids.flatMap((workflowId) => found.get(workflowId) ?? []);
}

/**
 * What one run waits for, and what its running subagents wait for (their calls wait under their own workflow IDs,
 * so each item names the run a decision must go to). Read by queries, without visibility's delay.
 */
export async function listPendingInRun(client: Client, workflowId: string): Promise<PendingItem[]> {
  const pending = await queryRun(client.workflow.getHandle(workflowId), getPendingQuery);
  const items = itemsOf(workflowId, pending);
  for (const delegation of pending.delegations ?? []) {
    // A subagent that finished between the two queries has nothing pending.
    items.push(...(await listPendingInRun(client, delegation.workflowId).catch(() => [])));
  }
  return items;
}

/**
 * What a run waits for, asked only of a running run: a closed one waits for nothing, and its query would wait for a
 * worker to replay it (none may be left).
 */
async function pendingOfRunning(handle: WorkflowHandle): Promise<PendingDecisions> {
  const { status } = await handle.describe().catch((error: unknown) => {
    throw refused(error);
  });
  if (status.name !== 'RUNNING') throw closedRun(handle.workflowId, status.name.toLowerCase().replaceAll('_', ' '));
  return queryRun(handle, getPendingQuery);
}

/** The refusal of a decision sent to a run that is not running (`cause`: the server's own error, when it said so). */
function closedRun(workflowId: string, status: string, cause?: WorkflowNotFoundError): DecisionRefusedError {
  return new DecisionRefusedError(
    `Run ${workflowId} is ${status}: nothing waits for a decision`,
    'not_pending',
    cause && { cause },
  );
}

/** The call ID to decide: the given one, or the only pending call (an error when there are none or several). */
export async function resolveCallId(handle: WorkflowHandle, callId: string | undefined): Promise<string> {
  if (callId) return callId;
  const { approvals } = await pendingOfRunning(handle);
  const only = approvals[0];
  if (approvals.length === 1 && only) return only.callId;
  if (approvals.length === 0)
    throw new DecisionRefusedError(`Run ${handle.workflowId} has no pending call`, 'not_pending');
  const ids = approvals.map((call) => `${call.callId} (${call.tool})`).join(', ');
  throw new DecisionRefusedError(
    `Run ${handle.workflowId} has ${approvals.length} pending calls; name one: ${ids}`,
    'ambiguous_call',
  );
}

/** The budget request to decide: the given one, or the pending one (an error when none is pending). */
export async function resolveRequestId(handle: WorkflowHandle, requestId: string | undefined): Promise<string> {
  if (requestId) return requestId;
  const { budget } = await pendingOfRunning(handle);
  if (!budget) throw new DecisionRefusedError(`Run ${handle.workflowId} has no pending budget request`, 'not_pending');
  return budget.requestId;
}

/**
 * The error to throw when one of Temporal's update limits per run refused an update, or null when none did: the
 * server's own message says no more than "Workflow Update failed". `instead` is what the sender can do meanwhile.
 */
export function updateLimitError(error: unknown, instead: string): Error | null {
  const limit = updateLimitReached(error);
  if (limit === 'in-flight') {
    return new Error(
      "the run has 10 updates in flight (Temporal's limit per run), so it cannot take this one now: try again in a " +
        'few seconds (event followers hold at most 4 of them)',
      { cause: error },
    );
  }
  if (limit === 'total') {
    return new Error(`the run has taken Temporal's 2,000 updates per run and takes no more; ${instead}`, {
      cause: error,
    });
  }
  return null;
}

/** A refused update as DecisionRefusedError (with the run's reason); other errors unchanged. */
function refused(error: unknown): unknown {
  const limit = updateLimitError(
    error,
    'send the decision as a signal (Temporal UI or `temporal workflow signal`), or wait until it continues as new',
  );
  if (limit) return limit;
  // "workflow execution already completed", or no such run: either way nothing waits.
  if (error instanceof WorkflowNotFoundError) return closedRun(error.workflowId, 'not running', error);
  if (!(error instanceof WorkflowUpdateFailedError) || !error.cause) return error;
  const details = error.cause instanceof ApplicationFailure ? error.cause.details : undefined;
  const reason = typeof details?.[0] === 'string' ? (details[0] as RefusalReason) : undefined;
  return new DecisionRefusedError(error.cause.message, reason);
}

/** Which of Temporal's update limits per run refused an update, if one did (by the server's own wording). */
function updateLimitReached(error: unknown): 'in-flight' | 'total' | null {
  const text = causeMessages(error);
  if (text.includes('number of concurrent in-flight updates')) return 'in-flight';
  if (text.includes('total number of distinct updates')) return 'total';
  return null;
}

/** Who sends decisions and answers, and how; merged into each payload so history records it. */
export interface Sender {
  identity: string;
  roles?: string[];
  channel: Channel;
  /** Signs each decision (`approvals.requireSigned`); its key must belong to `identity` on the worker. */
  signer?: DecisionSigner;
}

/** The identity fields a payload carries for `sender`. */
function senderFields(sender: Sender | undefined): Partial<Sender> {
  if (!sender) return {};
  return {
    identity: sender.identity,
    channel: sender.channel,
    ...(sender.roles && sender.roles.length > 0 ? { roles: sender.roles } : {}),
  };
}

/**
 * Sends a person's input by update, with the sender's identity merged in; a refused one throws DecisionRefusedError
 * carrying the run's reason.
 */
export async function sendAsPerson<Payload extends object, Result>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Result, [Payload]>,
  payload: Payload,
  sender?: Sender,
): Promise<Result> {
  try {
    return await handle.executeUpdate(update, { args: [{ ...senderFields(sender), ...payload }] });
  } catch (error) {
    throw refused(error);
  }
}

/** Sends a decision by update and returns what it did; a refused decision throws DecisionRefusedError. */
export async function sendDecision(
  handle: WorkflowHandle,
  decision: Decision,
  sender?: Sender,
): Promise<AppliedDecision> {
  const signed = sender?.signer ? await signedFor(handle, decision, sender, sender.signer) : decision;
  return sendAsPerson(handle, decideUpdate, signed, sender);
}

/**
 * The decision signed for this run and call: the first run ID of the chain comes from the server, the arguments' hash
 * from the pending call when the decision names none (a signature always names the arguments it approves).
 */
async function firstRunOf(handle: WorkflowHandle): Promise<string> {
  const { raw } = await handle.describe();
  return raw.workflowExecutionInfo?.firstRunId ?? raw.workflowExecutionInfo?.execution?.runId ?? '';
}

async function signedFor(
  handle: WorkflowHandle,
  decision: Decision,
  sender: Sender,
  signer: DecisionSigner,
): Promise<Decision> {
  const firstRunId = await firstRunOf(handle);
  let argsHash = decision.argsHash;
  if (argsHash === undefined) {
    const { approvals } = await queryRun(handle, getPendingQuery);
    argsHash = approvals.find((call) => call.callId === decision.callId)?.argsHash;
  }
  const fields = { ...decision, ...senderFields(sender), ...(argsHash !== undefined ? { argsHash } : {}) };
  return signDecision(fields, signer, { workflowId: handle.workflowId, firstRunId });
}

/**
 * Answers the run's pending question by update; returns the question that was answered. With the sender's signer the
 * answer is signed, and must name its question (`callId`): signing whatever is pending when the answer is sent could
 * sign it for a question the person never read, queued behind the one they did.
 */
export async function sendAnswer(
  handle: WorkflowHandle,
  answer: string,
  callId?: string,
  sender?: Sender,
): Promise<string> {
  if (!sender?.signer) return sendAsPerson(handle, answerUpdate, { answer, ...(callId ? { callId } : {}) }, sender);
  if (callId === undefined)
    throw new DecisionRefusedError(
      'a signed answer names its question: give its callId (see `pending`)',
      'invalid_payload',
    );
  const target = { workflowId: handle.workflowId, firstRunId: await firstRunOf(handle) };
  const signed = signDecision({ answer, callId, ...senderFields(sender) }, sender.signer, target);
  return sendAsPerson(handle, answerUpdate, signed, sender);
}

/** Sends a budget decision by update; a refused one throws DecisionRefusedError with the reason. */
export function sendBudgetDecision(
  handle: WorkflowHandle,
  decision: BudgetDecision,
  sender?: Sender,
): Promise<AppliedBudgetDecision> {
  return sendAsPerson(handle, decideBudgetUpdate, decision, sender);
}
