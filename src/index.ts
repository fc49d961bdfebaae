/**
 * durable-react-agent's root export, for services: the client, the tool definition, the config, and the public
 * error, result and decision types. The worker side is `durable-react-agent/worker`, workflow code (and the
 * workflow's own messages and records) `durable-react-agent/workflow`, test doubles `durable-react-agent/testing`,
 * behaviour checks over recorded runs `durable-react-agent/replay`, the approval inbox `durable-react-agent/inbox`.
 */
export * from './client/index';
export {
  defineTool,
  ToolInputError,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
} from './worker/tools/define-tool';
export { validateAgentConfig, type AgentConfig } from './shared/agent-config';
export { DurableAgentError, ErrorType } from './shared/errors';
export type { AgentStatus, ReActResult, ReActStep, ReActTrace } from './shared/types';
export type { TokenUsage } from './shared/cost';
export type { TerminationReason } from './shared/termination-reasons';
export type { AgentEvent } from './shared/events';
export type { AppliedDecision, Decision, PendingCall, PendingQuestion } from './shared/approvals';
