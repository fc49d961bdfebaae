/** The client side: what services use to start runs, read traces and decide pending calls. */
export {
  AgentClient,
  AgentRunError,
  InvalidConfigError,
  SearchAttributesMissingError,
  type AgentRunHandle,
  type DecisionBody,
  type StartOptions,
} from './agent-client';
export { DecisionRefusedError, type PendingItem } from './decisions';
export { DEFAULT_OPENAI_MODEL, hasModelEndpoint, LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from './env';
