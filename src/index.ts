/** The public API of durable-react-agent (Node side). Workflow code is loaded by the worker, not from here. */
export { AgentClient, AgentRunError, InvalidConfigError, type AgentRunHandle, type StartOptions } from './client';
export { createAgentWorker, createDefaultRegistry, createOpenAIClient, type AgentWorkerOptions } from './worker';
export { createActivities, type Activities, type ActivityDependencies } from './activities';
export { defineTool, type AnyToolDefinition, type ToolContext, type ToolDefinition, type ToolOutput } from './tools/define-tool';
export { ToolRegistry, DuplicateToolError } from './tools/registry';
export { createBuiltinTools } from './tools/builtin';
export { agentConfigSchema, validateAgentConfig, type AgentConfig, type AgentConfigInput, type StopCondition } from './shared/config';
export { ErrorType } from './shared/errors';
export { DEFAULT_TASK_QUEUE, getScratchpadQuery, getStatusQuery, getTraceQuery } from './shared/messages';
export type * from './shared/types';
export { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from './testing/scripted-model';
export { startDevServer, resolveTemporalCli } from './dev-server';
