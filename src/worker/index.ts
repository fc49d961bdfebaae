/**
 * `durable-react-agent/worker`: the worker side. Add {@link DurableAgentPlugin} to your own `Worker.create`, or let
 * {@link createAgentWorker} build a worker with it. The option types not named here are the plugin's fields
 * (`DurableAgentPluginOptions['modelCalls']`, …).
 */
export {
  DurableAgentPlugin,
  stockBundleOptions,
  createDefaultRegistry,
  type DurableAgentPluginOptions,
} from './plugin';
export { createAgentWorker, prebuiltWorkflowBundle, type AgentWorkerOptions } from './create-worker';
export { runWorkerProcess } from './process';
export { createActivities } from './activities';
export { createOpenAIClient } from './openai-client';
// defineTool and its types are the root export's: services and workers declare tools the same way.
export { ToolRegistry, DuplicateToolError } from './tools/registry';
export type { AnyToolDefinition } from './tools/define-tool';
export { createBuiltinTools } from './tools/builtin';
export type { McpServersConfig } from './mcp/config';
export type { RemoteToolConfig } from './tools/remote-tools';
// The plugin's `prices`: USD per million tokens by model name, for each run's cost ledger and `limits.cost`.
export type { PriceTable } from '../shared/cost';
export { readApprovalKeysFile } from '../common/decision-signing';
export { EncryptionCodec, encryptedDataConverter } from '../common/data-converter';
export { AGENT_SEARCH_ATTRIBUTES } from '../shared/search-attributes';
export { hasModelEndpoint, LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from '../common/env';
