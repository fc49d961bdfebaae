/**
 * `durable-react-agent/testing`: the scripted OpenAI-compatible model every test uses, and a whole local stack (dev
 * server, scripted model, worker, client) for scripts and your own tests (replay-check's behaviour regression checks
 * are `durable-react-agent/replay`). Not for production workers.
 */
export {
  startScriptedModel,
  type RecordedRequest,
  type ScriptedModelOptions,
  type ScriptedModelServer,
  type ScriptOptions,
  type ScriptedRawResponse,
  type ScriptedResponder,
  type ScriptedToolCall,
  type ScriptedTurn,
} from './scripted-model';
export { lastMessageOf } from './scripted-turn';
// The shapes real servers give the same reply, for testing a reply reader against each.
export { PERSONALITIES, type Personality } from './personalities';
export { startLocalStack, type LocalStack } from './local-stack';
export { freePort } from './free-port';
export { startDevServer, isServerAnswering, type DevServer, type DevServerOptions } from '../dev/dev-server';
export { resolveTemporalCli, TemporalCliNotFoundError } from '../dev/provision';
