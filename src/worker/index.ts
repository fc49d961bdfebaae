/**
 * `durable-react-agent/worker`: the worker side. Add {@link DurableAgentPlugin} to your own `Worker.create`, or let
 * {@link createAgentWorker} build a worker with it.
 */
export {
  DurableAgentPlugin,
  STOCK_WORKFLOWS_PATH,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  createDefaultRegistry,
  type DurableAgentPluginOptions,
} from './plugin';
export { createAgentWorker, prebuiltWorkflowBundle, type AgentWorkerOptions } from './create-worker';
export { createOpenAIClient, OPENAI_REQUEST_TIMEOUT_MS } from './openai-client';
export { createActivities, type Activities, type ActivityDependencies } from './activities';
export { ToolRegistry, DuplicateToolError, type DynamicToolSource } from './tools/registry';
export { McpConfigError, parseMcpServers, type McpServerConfig, type McpServersConfig } from './mcp/config';
export {
  RemoteToolConfigError,
  parseRemoteTools,
  DEFAULT_REMOTE_SCHEDULE_TO_START,
  type RemoteToolConfig,
} from './tools/remote-tools';
export type { RemoteToolInput, RemoteToolPlacement } from '../shared/tool-protocol';
export { McpToolSource, confirmFromAnnotations, mcpToolName } from './mcp/tool-source';
export { createBuiltinTools, type BuiltinToolsOptions } from './tools/builtin';
// defineTool and its types are the root export's: services and workers declare tools the same way.
export type { AnyToolDefinition } from './tools/define-tool';
export type { RetryableErrorMatcher } from './tools/retryable-errors';
export type { ReconcileContext, ReconcileResult } from './tools/define-tool';
export type { ConfirmationPolicy, ConfirmationRule } from '../shared/approvals';
export type { ModelCallOptions, RunTuning } from './model-calls';
export type { ModelCallPolicy } from '../shared/config-fields';
// The plugin's `prices`: USD per million tokens by model name, for each run's cost ledger and `limits.cost`.
export type { ModelPrice, PriceTable } from '../shared/cost';
export { DEFAULT_TASK_QUEUE } from '../shared/messages';
export {
  AGENT_SEARCH_ATTRIBUTES,
  AgentPendingToolsKey,
  AgentStatusKey,
  type AgentStatusValue,
} from '../shared/search-attributes';
export {
  DEFAULT_OPENAI_MODEL,
  hasModelEndpoint,
  LOCAL_TEMPORAL_ADDRESS,
  readEnv,
  type RuntimeEnv,
} from '../client/env';
export { runWorkerProcess } from './process';
export { readWorkerEnv, readRemoteToolsFile, type WorkerEnv } from './env';
export { parseApprovalKeys, readApprovalKeysFile, type ApprovalKey } from '../client/decision-signing';
export { DecisionVerifierCodec } from './codec/decision-verifier';
export { createTracing, type Tracing } from './tracing';
export {
  dataConverterFromEnv,
  EncryptionCodec,
  encryptedDataConverter,
  parseEncryptionKeys,
  type EncryptionKey,
} from './codec';
