import type { IncomingMessage } from 'node:http';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { sendAnswer, sendBudgetDecision, sendDecision, type Sender } from '../client/decisions';
import type { BudgetDecision } from '../shared/budget';
import { DecisionRefusedError } from '../client/errors';
import type { Decision, RefusalReason } from '../shared/approvals';
import type { InboxUser } from './auth';
import type { DecisionSigner } from '../common/decision-signing';
import { DurableAgentError } from '../shared/errors';

/** Largest decision body the inbox reads (an edit's arguments included). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What became of a decision, as the page shows it: done, overtaken by someone else, or refused (fixable). */
export interface DecisionOutcome {
  status: 'applied' | 'stale' | 'refused';
  message: string;
  reason?: RefusalReason | 'bad_request' | 'not_found';
}

/** HTTP status of an outcome: stale decisions are a conflict, refusals by policy forbidden, others unprocessable. */
export function httpStatus(outcome: DecisionOutcome): number {
  if (outcome.status === 'applied') return 200;
  if (outcome.status === 'stale') return 409;
  if (outcome.reason === 'not_allowed') return 403;
  if (outcome.reason === 'not_found') return 404;
  return outcome.reason === 'bad_request' ? 400 : 422;
}

/** Reads a form or JSON body (bounded) into a flat record. */
export async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const type = request.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text || '{}');
    } catch (error) {
      throw new BadRequest(`the body is not valid JSON: ${(error as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new BadRequest('the body must be a JSON object');
    return parsed as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** A request the inbox cannot make sense of; answered with 400 and this message. */
export class BadRequest extends DurableAgentError {
  override readonly name = 'BadRequest';
}

function text(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The decision a form or JSON body asks for (`decision` = approve, approve_always, reject, edit or respond). */
export function decisionOf(body: Record<string, unknown>): Decision {
  const callId = text(body, 'callId');
  if (!callId) throw new BadRequest('callId is missing');
  const argsHash = text(body, 'argsHash');
  const base = { callId, ...(argsHash ? { argsHash } : {}) };
  switch (body.decision) {
    case 'approve':
    case 'approve_always':
      return { ...base, decision: 'approve', always: body.decision === 'approve_always' || body.always === true };
    case 'reject':
      return { ...base, decision: 'reject', reason: text(body, 'reason') ?? '' };
    case 'respond':
      return { ...base, decision: 'respond', observation: text(body, 'observation') ?? '' };
    case 'edit': {
      let args = body.args;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch (error) {
          throw new BadRequest(`the edited arguments are not valid JSON: ${(error as Error).message}`);
        }
      }
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        throw new BadRequest('the edited arguments must be a JSON object');
      return { ...base, decision: 'edit', args: args as Record<string, unknown> };
    }
    default:
      throw new BadRequest(
        `unknown decision "${String(body.decision)}": approve, approve_always, reject, edit or respond`,
      );
  }
}

/** Refusals that mean the item moved on without this person: shown as such, not as errors. */
const STALE: readonly (RefusalReason | undefined)[] = ['already_decided', 'not_pending', 'stale_args', 'no_question'];

function outcomeOfError(error: unknown): DecisionOutcome {
  if (error instanceof BadRequest) return { status: 'refused', reason: 'bad_request', message: error.message };
  // The senders refuse a closed run with Temporal's WorkflowNotFoundError as the cause; signing a decision for a run
  // that no longer exists meets it directly, when it reads the run's first run ID.
  if (
    error instanceof WorkflowNotFoundError ||
    (error instanceof Error && error.cause instanceof WorkflowNotFoundError)
  )
    return { status: 'stale', reason: 'not_found', message: 'The run no longer exists: nothing to decide.' };
  if (!(error instanceof DecisionRefusedError)) throw error;
  if (STALE.includes(error.reason)) {
    const message =
      error.reason === 'stale_args'
        ? `The call's arguments changed since this page showed them; nothing was sent. (${error.message})`
        : error.reason === 'not_pending'
          ? `Nothing of that ID is waiting (it was decided elsewhere, or never existed); nothing changed. (${error.message})`
          : `Already decided elsewhere; nothing changed. (${error.message})`;
    return { status: 'stale', message, ...(error.reason ? { reason: error.reason } : {}) };
  }
  return { status: 'refused', message: error.message, ...(error.reason ? { reason: error.reason } : {}) };
}

/**
 * The person as a sender. With a signer, the inbox signs in the name of the person it authenticated: the worker's key
 * set must name them among that key's approvers.
 */
function senderOf(user: InboxUser, signer: DecisionSigner | undefined): Sender {
  return {
    identity: user.name,
    channel: 'inbox',
    ...(user.roles.length > 0 ? { roles: user.roles } : {}),
    ...(signer ? { signer } : {}),
  };
}

/** What each post does, as this person; its result is the message the page shows. */
type Act = (handle: WorkflowHandle, body: Record<string, unknown>, sender: Sender) => Promise<string>;

/** An action as the server calls it: the run's answer (or refusal) becomes the outcome the page shows. */
function asPerson(act: Act) {
  return async (
    client: Client,
    user: InboxUser,
    workflowId: string,
    body: Record<string, unknown>,
    signer?: DecisionSigner,
  ): Promise<DecisionOutcome> => {
    try {
      const sender = senderOf(user, signer);
      return { status: 'applied', message: await act(client.workflow.getHandle(workflowId), body, sender) };
    } catch (error) {
      return outcomeOfError(error);
    }
  };
}

/** Sends a decision about a pending call. */
export const decideAs = asPerson(async (handle, body, sender) => {
  const applied = await sendDecision(handle, decisionOf(body), sender);
  const always = applied.always ? ' (and every later call of it in this run)' : '';
  return `${applied.decision} ${applied.callId} (${applied.tool})${always}: sent as ${sender.identity}`;
});

/** Raises a run's limit, or stops it there. */
export const budgetAs = asPerson(async (handle, body, sender) => {
  const requestId = text(body, 'requestId');
  if (!requestId) throw new BadRequest('requestId is missing');
  let decision: BudgetDecision;
  if (body.decision === 'stop') decision = { requestId, decision: 'stop' };
  else if (body.decision === 'raise') {
    const amount = Number(body.amount);
    // USD (a cost budget) may have decimals; the run refuses them for the limits counted in whole numbers.
    if (!Number.isFinite(amount) || amount <= 0) throw new BadRequest('the raise must be a number above 0');
    decision = { requestId, decision: 'raise', amount };
  } else throw new BadRequest(`unknown budget decision "${String(body.decision)}": raise or stop`);
  const applied = await sendBudgetDecision(handle, decision, sender);
  const what =
    applied.decision === 'raise' ? `raised by ${applied.amount} to ${applied.newLimit}` : 'the run stops there';
  return `${applied.requestId}: ${what}, as ${sender.identity}`;
});

/** Answers a run's question. */
export const answerAs = asPerson(async (handle, body, sender) => {
  const answer = text(body, 'answer');
  if (!answer) throw new BadRequest('the answer is empty');
  const question = await sendAnswer(handle, answer, text(body, 'callId'), sender);
  return `Answered "${question}" as ${sender.identity}`;
});
