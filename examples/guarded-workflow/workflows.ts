/**
 * Example: the ReAct loop inside your own workflow, with hooks that run in the workflow.
 *  - beforeToolCall refuses reading secrets (`.env` files, anything under `secrets/`) with a message the model sees;
 *  - shouldStop ends the run (reason `custom`) as soon as an observation contains the ticket number it was after.
 * A worker registers this file's workflows plus the library's activities (see README.md beside it).
 */
import { proxyActivities } from '@temporalio/workflow';
import { runReActLoop, type AgentHooks, type AgentWorkflowInput, type ReActResult } from 'durable-react-agent/workflow';
import type * as policy from './activities';

// A run without hooks starts its subagents as the stock workflow, so a worker for this file exports it too. A run with
// hooks starts them as its own workflow type: the hooks guard the subagents' calls as well.
export { reactAgentWorkflow } from 'durable-react-agent/workflow';

const { checkPolicy } = proxyActivities<typeof policy>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 3 } });

const SECRET_PATH = /(^|\/)(\.env[^/]*|secrets\/.*)$/;

/** The hooks, exported so tests and other workflows can reuse them. */
export const guardedHooks: AgentHooks = {
  beforeToolCall: ({ tool, args }) => {
    const path = typeof args === 'object' && args !== null ? (args as { path?: unknown }).path : undefined;
    if ((tool === 'read_file' || tool === 'grep_search') && typeof path === 'string' && SECRET_PATH.test(path)) {
      return { allow: false, message: `${path} holds secrets and may not be read by an agent` };
    }
    return { allow: true };
  },
  shouldStop: (step) =>
    step.observation !== null && /TICKET-\d+/.test(step.observation) ? 'found the ticket number' : false,
};

/** An agent workflow with guard rails: same input and result as the stock agent. */
export async function guardedAgentWorkflow(input: AgentWorkflowInput): Promise<ReActResult> {
  return runReActLoop(input, guardedHooks);
}

/** The same loop whose beforeToolCall awaits an activity: a policy service decides each call before it runs. */
export async function policyCheckedAgentWorkflow(input: AgentWorkflowInput): Promise<ReActResult> {
  return runReActLoop(input, {
    beforeToolCall: async ({ tool, args }) => {
      const verdict = await checkPolicy({ tool, args });
      return verdict.allowed ? { allow: true } : { allow: false, message: verdict.why ?? 'refused by policy' };
    },
  });
}
