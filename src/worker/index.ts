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
export { McpToolSource, confirmFromAnnotations, mcpToolName } from './mcp/tool-source';
export { createBuiltinTools, type BuiltinToolsOptions } from './tools/builtin';
// defineTool and its types are the root export's: services and workers declare tools the same way.
export { runWorkerProcess } from './process';
export { readWorkerEnv, type WorkerEnv } from './env';
export { createTracing, type Tracing } from './tracing';
export {
  dataConverterFromEnv,
  EncryptionCodec,
  encryptedDataConverter,
  parseEncryptionKeys,
  type EncryptionKey,
} from './codec';
