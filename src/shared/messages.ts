import { defineQuery } from '@temporalio/workflow';
import type { AgentStatus, ReActTrace } from './types';

/** The task queue workers poll and clients start runs on, unless TEMPORAL_TASK_QUEUE overrides it. */
export const DEFAULT_TASK_QUEUE = 'durable-react-agent';

/** Name of the agent workflow type, as registered by the worker. */
export const AGENT_WORKFLOW_TYPE = 'reactAgentWorkflow';

/** The trace so far: steps, usage, error history. */
export const getTraceQuery = defineQuery<ReActTrace>('getTrace');
/** The scratchpad as the model sees it (Thought/Action/Observation text). */
export const getScratchpadQuery = defineQuery<string>('getScratchpad');
/** Where the run is: thinking, acting, finishing or completed. */
export const getStatusQuery = defineQuery<AgentStatus>('getStatus');
