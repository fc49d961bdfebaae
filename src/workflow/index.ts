/**
 * The loop as a library, for a user's own workflow file (it runs in the workflow sandbox). Register the activities
 * with `createActivities` on the worker, and export `reactAgentWorkflow` too if the agent uses subagents. A plain
 * Temporal client (or another workflow) talks to a run with the definitions below; AgentClient wraps them.
 */
export { reactAgentWorkflow, runReActLoop } from './react-agent';
export type { AgentHooks } from './hooks';
export type { AgentWorkflowInput, ReActResult, ReActStep } from '../shared/types';
export type { ResolvedConfig } from '../shared/config';
export type { PendingDecisions } from '../shared/approvals';
export type { AgentEventBody } from '../shared/events';
// `trace.cost`, the run's cost ledger (see docs/what-a-run-cost.md).
export type { RunCost } from '../shared/cost';
export {
  AGENT_WORKFLOW_TYPE,
  answerUpdate,
  decideBudgetUpdate,
  decideUpdate,
  getEventsQuery,
  getPendingQuery,
  getStatusQuery,
  getTraceQuery,
  sendMessageUpdate,
  waitForEventsUpdate,
} from '../shared/messages';
