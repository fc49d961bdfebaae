import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { deciderOf, type Channel } from '../shared/identity';
import { decodePayload } from './payloads';
import { chainRunIds } from './run-chain';
import { verifyDecision, type ApprovalKey } from '../common/decision-signing';
import { bindingProblem, SIGNATURE_FIELD, type SignatureEnvelope } from '../shared/signed-decision';

/** The updates and signals by which people decide; their payloads are what the audit reads. */
const DECISION_MESSAGES = ['decide', 'answer', 'decideBudget'];

/** One decision or answer as the run's history recorded it. */
export interface AuditEntry {
  /** When the server accepted it (the history event's time). */
  at: string;
  runId: string;
  /** `decide`, `answer` or `decideBudget`. */
  message: string;
  via: 'update' | 'signal';
  /** Who the payload says decided (null: nobody said), their roles and channel. */
  identity: string | null;
  roles?: string[];
  channel: Channel;
  /** The Temporal client identity that sent the request (e.g. `1234@host`), as the server recorded it. */
  sender?: string;
  /** The payload as sent (decision, call ID, reason, edited args, answer…), identity fields left out. */
  payload: Record<string, unknown>;
  /** What the run answered: the applied decision, or why the handler refused it. Signals get no answer. */
  result?: unknown;
  refused?: string;
  /** The key the payload says signed it; whether that holds is what `verify` checks. */
  signedWith?: string;
  /** With `verify`: signed or not, and if signed, by whom and whether the signature holds, or why not. */
  verification?: Verification;
}

/** What re-verifying one decision found. */
export type Verification =
  | { signed: false }
  | { signed: true; valid: true; keyId: string; approver: string }
  | { signed: true; valid: false; keyId?: string; why: string };

/** Options of {@link auditTrail}. */
export interface AuditOptions {
  /** Re-verify every decision's signature with these keys (the worker's verification keys). */
  verify?: readonly ApprovalKey[];
}

/**
 * Re-verifies a decision as the history holds it: the signature with today's keys, made for this run (workflow ID and
 * the chain's first run ID), and not yet expired when the server accepted it.
 */
function verificationOf(
  keys: readonly ApprovalKey[],
  payload: Record<string, unknown>,
  run: { workflowId: string; firstRunId: string; at: string },
): Verification {
  const envelope = payload[SIGNATURE_FIELD] as SignatureEnvelope | undefined;
  if (!envelope) return { signed: false };
  const verdict = verifyDecision(keys, payload);
  if (!verdict.ok)
    return { signed: true, valid: false, ...(verdict.keyId ? { keyId: verdict.keyId } : {}), why: verdict.why };
  const { keyId, approver } = verdict;
  const binding = bindingProblem(envelope, { ...run, nowMs: Date.parse(run.at) });
  if (binding === 'other_run')
    return { signed: true, valid: false, keyId, why: `made for run ${envelope.workflowId} (${envelope.firstRunId})` };
  if (binding === 'expired')
    return { signed: true, valid: false, keyId, why: `expired at ${envelope.expiresAt}, before it was accepted` };
  return { signed: true, valid: true, keyId, approver };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function timeOf(event: HistoryEvent): string {
  const seconds = Number(event.eventTime?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

/**
 * Who decided what, when and on which arguments, across a run's whole continue-as-new chain, read from its history
 * (decoded with this client's codecs, so encrypted runs work). Updates the validator refused never entered history,
 * so they are not here; an update whose handler refused it (an invalid edit) is, with `refused`.
 */
export async function auditTrail(
  client: Client,
  workflowId: string,
  options: AuditOptions = {},
): Promise<AuditEntry[]> {
  const decode = (payload: Payload | null | undefined) => decodePayload<unknown>(client, payload);
  const entries: AuditEntry[] = [];
  const runIds = await chainRunIds(client, workflowId);
  const firstRunId = runIds[0] ?? '';
  for (const runId of runIds) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const byUpdate = new Map<string, AuditEntry>();
    for (const event of history.events ?? []) {
      const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      const signaled = event.workflowExecutionSignaledEventAttributes;
      const completed = event.workflowExecutionUpdateCompletedEventAttributes;
      if (completed) {
        const entry = byUpdate.get(completed.meta?.updateId ?? '');
        if (!entry) continue;
        if (completed.outcome?.failure) entry.refused = completed.outcome.failure.message ?? 'refused';
        else entry.result = await decode(completed.outcome?.success?.payloads?.[0]);
        continue;
      }
      const name = accepted?.input?.name ?? signaled?.signalName;
      if (!name || !DECISION_MESSAGES.includes(name)) continue;
      const via = accepted ? 'update' : 'signal';
      const raw = await decode((accepted?.input?.args ?? signaled?.input)?.payloads?.[0]);
      const payload: Record<string, unknown> =
        raw !== null && typeof raw === 'object' ? { ...(raw as Record<string, unknown>) } : { raw };
      const by = deciderOf(
        {
          identity: typeof payload.identity === 'string' ? payload.identity : undefined,
          roles: Array.isArray(payload.roles) ? (payload.roles as unknown[]).map(String) : undefined,
          channel: typeof payload.channel === 'string' ? (payload.channel as Channel) : undefined,
        },
        via,
      );
      // The signature covers the identity fields too: verification needs them back.
      const identityFields = { identity: payload.identity, roles: payload.roles, channel: payload.channel };
      delete payload.identity;
      delete payload.roles;
      delete payload.channel;
      const sender = accepted?.meta?.identity ?? signaled?.identity ?? undefined;
      const at = timeOf(event);
      const envelope = payload[SIGNATURE_FIELD] as { keyId?: unknown } | undefined;
      // A signature is of a decision or of an answer: one copied onto the other message's payload is not valid there.
      const wrongKind = (name === 'answer') !== (payload.decision === undefined);
      const verification = !options.verify
        ? undefined
        : wrongKind && envelope
          ? { signed: true as const, valid: false as const, why: `a ${name} message carrying another kind's signature` }
          : verificationOf(options.verify, { ...payload, ...identityFields }, { workflowId, firstRunId, at });
      delete payload[SIGNATURE_FIELD];
      const entry: AuditEntry = {
        at,
        runId,
        message: name,
        via,
        ...by,
        ...(sender ? { sender } : {}),
        payload,
        ...(typeof envelope?.keyId === 'string' ? { signedWith: envelope.keyId } : {}),
        ...(verification ? { verification } : {}),
      };
      if (accepted?.meta?.updateId) byUpdate.set(accepted.meta.updateId, entry);
      entries.push(entry);
    }
  }
  return entries;
}
