/** The client side: what services use to start runs, read traces and decide pending calls. */
export {
  AgentClient,
  type AgentClientOptions,
  type AgentRunHandle,
  type DecisionBody,
  type StartOptions,
} from './agent-client';
export {
  AgentRunError,
  DecisionRefusedError,
  InvalidConfigError,
  MessageRefusedError,
  SearchAttributesMissingError,
} from './errors';
export type { TurnAnswer } from './conversation';
export type { PendingItem, Sender } from './decisions';
export { auditTrail, type AuditEntry } from './audit';
export { CONTINUABLE, ForkRefusedError, type ContinueOptions, type ForkOptions } from './fork';
export { followEvents, type EventsGap, type EventsOptions } from './events';
export { followWithChildren, type ChildEvent } from './child-events';
export { DEFAULT_OPENAI_MODEL, hasModelEndpoint, LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from './env';
