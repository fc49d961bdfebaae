import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Where a run is, for visibility queries and the Temporal UI's list. */
export const AgentStatusKey = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
/** Tools whose calls wait for a decision. */
export const AgentPendingToolsKey = defineSearchAttributeKey('AgentPendingTools', SearchAttributeType.KEYWORD_LIST);

/** Values of AgentStatus. */
export type AgentStatusValue =
  'Running' | 'AwaitingApproval' | 'AwaitingInput' | 'AwaitingMessage' | 'Completed' | 'Failed' | 'Cancelled';

/** The search attributes a cluster must have registered, in the dev server's `--search-attribute` form. */
export const AGENT_SEARCH_ATTRIBUTES = [
  { name: AgentStatusKey.name, type: 'keyword' },
  { name: AgentPendingToolsKey.name, type: 'keywordList' },
] as const;

/** The memo field naming a run's pending items (call, question and budget request IDs, comma-separated). */
export const PENDING_MEMO_KEY = 'agentPending';
