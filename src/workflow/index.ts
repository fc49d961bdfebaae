/**
 * The loop as a library, for a user's own workflow file (it runs in the workflow sandbox). Register the activities
 * with `createActivities` on the worker, and export `reactAgentWorkflow` too if the agent uses subagents.
 */
export { reactAgentWorkflow, runReActLoop } from './react-agent';
export type { AgentHooks, PendingToolCall, ToolCallVerdict } from './hooks';
export type {
  AgentErrorKind,
  AgentErrorRecord,
  AgentWorkflowInput,
  ArchivedSteps,
  CarriedState,
  ConversationState,
  ReActAction,
  ReActResult,
  ReActStep,
  RunLineage,
  RunSeed,
  StructuredOutput,
  TurnRecord,
} from '../shared/types';
export { ZERO_USAGE, addUsage } from '../shared/cost';
export type { ResolvedConfig, ResolvedConfigInput } from '../shared/config';
// The workflow's messages, for clients of your own (AgentClient wraps them) and workflows that start the agent.
export {
  AGENT_WORKFLOW_TYPE,
  getEventsQuery,
  getPendingQuery,
  getScratchpadQuery,
  getStatusQuery,
  getTraceQuery,
  waitForEventsUpdate,
} from '../shared/messages';
export type { AgentEventBody, EventPage, EventsWaitResult } from '../shared/events';
export type { PendingDecisions } from '../shared/approvals';
export type { AppliedBudgetDecision } from '../shared/budget';
// `trace.cost`, the run's cost ledger (see docs/what-a-run-cost.md), and the summary its `terminated` event carries.
export type { CarriedCost, EngineActions, ModelCallCost, RunCost, ToolTime, WastedWork } from '../shared/cost';
export type { CostSummary } from '../shared/events';
export type { ConfigValidation } from '../shared/agent-config';
