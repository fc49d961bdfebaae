import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { AgentPendingToolsKey, AgentStatusKey, type AgentStatusValue } from '../shared/search-attributes';
import type { RunState } from './run-state';
import { refreshDetails } from './ui-details';

/**
 * Search attributes are only upserted when the run was started with them (AgentClient sets AgentStatus at start):
 * upserting an attribute the cluster has not registered would fail every workflow task of the run.
 */
export function searchAttributesEnabled(): boolean {
  return workflowInfo().typedSearchAttributes.get(AgentStatusKey) !== undefined;
}

/** The AgentStatus a run in this state shows. */
export function agentStatusOf(state: RunState): AgentStatusValue {
  if (state.phase === 'completed') return state.stop?.reason === 'cancelled' ? 'Cancelled' : 'Completed';
  const pending = state.approvals.snapshot();
  if (pending.question) return 'AwaitingInput';
  if (pending.approvals.length > 0) return 'AwaitingApproval';
  return 'Running';
}

/** Publishes AgentStatus and AgentPendingTools when they changed, and refreshes the UI's current details. */
export function publishStatus(state: RunState, status: AgentStatusValue = agentStatusOf(state)): void {
  refreshDetails(state);
  if (!state.searchAttributes) return;
  const tools = [...new Set(state.approvals.snapshot().approvals.map((call) => call.tool))].sort();
  const signature = `${status}|${tools.join(',')}`;
  if (signature === state.publishedStatus) return;
  state.publishedStatus = signature;
  upsertSearchAttributes([
    { key: AgentStatusKey, value: status },
    { key: AgentPendingToolsKey, value: tools.length > 0 ? tools : null },
  ]);
}
