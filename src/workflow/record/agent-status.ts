import { upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  AgentPendingToolsKey,
  AgentStatusKey,
  PENDING_MEMO_KEY,
  type AgentStatusValue,
} from '../../shared/search-attributes';
import type { AgentStatus } from '../../shared/types';
import type { PendingDecisions } from '../../shared/approvals';
import type { RunState } from './run-state';
import { notePublishedPending, notePublishedStatus, phaseOf, type RunPhase } from './run-activity';
import { refreshDetails } from './ui-details';
import { countSearchAttributeUpsert } from './engine-action-counter';

const runPhase = (state: RunState): RunPhase => phaseOf(state.activity, state.approvals.snapshot());

/** The phase as the AgentStatus search attribute spells it (visibility queries and the UI's list use these values). */
const SEARCH_ATTRIBUTE_VALUE: Readonly<Record<RunPhase, AgentStatusValue>> = {
  thinking: 'Running',
  acting: 'Running',
  finishing: 'Running',
  awaiting_approval: 'AwaitingApproval',
  awaiting_input: 'AwaitingInput',
  awaiting_message: 'AwaitingMessage',
  completed: 'Completed',
};

/** Live status for the getStatus query. */
export function toStatus(state: RunState): AgentStatus {
  return {
    state: runPhase(state),
    iteration: state.counters.iterations,
    maxIterations: state.budget.limits.maxIterations,
    tokensUsed: state.counters.usage.totalTokens,
    terminationReason: state.outcome.stop?.reason ?? null,
    runningTools: [...state.activity.runningTools],
  };
}

/**
 * Search attributes are only upserted when the run was started with them (AgentClient sets AgentStatus at start):
 * upserting an attribute the cluster has not registered would fail every workflow task of the run.
 */
export function searchAttributesEnabled(): boolean {
  return workflowInfo().typedSearchAttributes.get(AgentStatusKey) !== undefined;
}

/** The AgentStatus a run in this state shows; Temporal reports a cancelled agent run as Completed, so it says Cancelled. */
export function agentStatusOf(state: RunState): AgentStatusValue {
  const phase = runPhase(state);
  return phase === 'completed' && state.outcome.stop?.reason === 'cancelled'
    ? 'Cancelled'
    : SEARCH_ATTRIBUTE_VALUE[phase];
}

/** Marks a run that fails before it has a state (its input was refused) as Failed, when it has the attribute. */
export function markFailed(): void {
  if (searchAttributesEnabled()) upsertSearchAttributes([{ key: AgentStatusKey, value: 'Failed' }]);
}

/**
 * Publishes AgentStatus and AgentPendingTools when they changed, and refreshes the UI's current details. The memo
 * also names the pending items (`agentPending`: call, question and budget request IDs), so a listing can tell from
 * visibility alone which waiting runs changed: the status and tools stay the same when one pending
 * calculator call follows another.
 */
export function publishStatus(state: RunState, status: AgentStatusValue = agentStatusOf(state)): void {
  publishAttributes(state, status);
  // After the upsert, so the details' cost line counts it (setting details is no command: the order is free).
  refreshDetails(state);
}

/** What the status attributes would be set to, as one comparable string, and the pending tools. */
function statusSignature(status: AgentStatusValue, pending: PendingDecisions): { signature: string; tools: string[] } {
  const tools = [...new Set(pending.approvals.map((call) => call.tool))].sort();
  return { signature: `${status}|${tools.join(',')}`, tools };
}

/**
 * Whether {@link publishStatus} with this status would upsert: the last event of a run is emitted before its final
 * status is published, and its cost must already count that upsert to equal the trace's.
 */
export function statusUpsertDue(state: RunState, status: AgentStatusValue = agentStatusOf(state)): boolean {
  return (
    state.searchAttributes &&
    statusSignature(status, state.approvals.snapshot()).signature !== state.activity.publishedStatus
  );
}

function publishAttributes(state: RunState, status: AgentStatusValue): void {
  if (!state.searchAttributes) return;
  const pending = state.approvals.snapshot();
  const { signature, tools } = statusSignature(status, pending);
  if (signature !== state.activity.publishedStatus) {
    notePublishedStatus(state.activity, signature);
    countSearchAttributeUpsert();
    upsertSearchAttributes([
      { key: AgentStatusKey, value: status },
      { key: AgentPendingToolsKey, value: tools.length > 0 ? tools : null },
    ]);
  }
  const ids = [
    ...pending.approvals.map((call) => call.callId),
    ...(pending.question ? [pending.question.callId] : []),
    ...(pending.budget ? [pending.budget.requestId] : []),
  ].join(',');
  if (ids === state.activity.publishedPending) return;
  notePublishedPending(state.activity, ids);
  upsertMemo({ [PENDING_MEMO_KEY]: ids });
}
