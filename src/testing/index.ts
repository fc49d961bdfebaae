/**
 * `durable-react-agent/testing`: the scripted OpenAI-compatible model every test uses, and a whole local stack (dev
 * server, scripted model, worker, client) for scripts and your own tests. Not for production workers.
 */
export {
  startScriptedModel,
  type RecordedRequest,
  type ScriptedModelOptions,
  type ScriptedModelServer,
  type ScriptedResponder,
  type ScriptedToolCall,
  type ScriptedTurn,
} from './scripted-model';
export { lastMessageOf } from './scripted-turn';
export { startLocalStack, type LocalStack } from './local-stack';
export { freePort } from './free-port';
export { startDevServer, isServerAnswering, type DevServer, type DevServerOptions } from '../dev/dev-server';
export { resolveTemporalCli, TemporalCliNotFoundError } from '../dev/provision';
