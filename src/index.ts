/**
 * durable-react-agent's root export, for services: the client, the tool definition, and every public error and
 * decision type. The worker side is `durable-react-agent/worker`, workflow code `durable-react-agent/workflow`, test
 * doubles `durable-react-agent/testing`.
 */
export * from './client/index';
export {
  defineTool,
  ToolInputError,
  type AnyToolDefinition,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
} from './worker/tools/define-tool';
export {
  agentConfigSchema,
  validateAgentConfig,
  type AgentConfig,
  type AgentConfigInput,
  type StopCondition,
} from './shared/config';
export { DurableAgentError, ErrorType, type ErrorTypeName } from './shared/errors';
export {
  AGENT_SEARCH_ATTRIBUTES,
  AgentPendingToolsKey,
  AgentStatusKey,
  type AgentStatusValue,
} from './shared/search-attributes';
export {
  DEFAULT_TASK_QUEUE,
  getPendingQuery,
  getScratchpadQuery,
  getStatusQuery,
  getTraceQuery,
  getEventsQuery,
  waitForEventsUpdate,
} from './shared/messages';
export type * from './shared/types';
export type { AgentEvent, AgentEventBody, EventPage, EventsWaitResult } from './shared/events';
export type {
  AppliedDecision,
  ConfirmationPolicy,
  ConfirmationRule,
  Decision,
  PendingCall,
  PendingDecisions,
  PendingQuestion,
} from './shared/approvals';
