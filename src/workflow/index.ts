/**
 * The loop as a library, for a user's own workflow file (it runs in the workflow sandbox). Register the activities
 * with `createActivities` on the worker, and export `reactAgentWorkflow` too if the agent uses subagents.
 */
export { reactAgentWorkflow, runReActLoop } from './react-agent';
export type { AgentHooks, PendingToolCall, ToolCallVerdict } from './hooks';
export type { AgentWorkflowInput, ReActResult, ReActStep } from '../shared/types';
export type { AgentConfigInput } from '../shared/config';
