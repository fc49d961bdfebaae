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
export type { PendingItem } from './decisions';
export type { PendingHandle } from './pending-handles';
export type { AuditEntry } from './audit';
export { ForkRefusedError, type ContinueOptions, type ForkOptions } from './fork';
export { QueryUnansweredError } from './query';
export type { EventsGap, EventsOptions } from './events';
