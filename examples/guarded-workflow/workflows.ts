/**
 * Example: the ReAct loop inside your own workflow, with hooks that run in the workflow.
 *  - beforeToolCall refuses reading secrets (`.env` files, anything under `secrets/`) with a message the model sees;
 *  - shouldStop ends the run (reason `custom`) as soon as an observation contains the ticket number it was after.
 * A worker registers this file's workflows plus the library's activities (see README.md beside it).
 */
import { runReActLoop, type AgentHooks, type AgentWorkflowInput, type ReActResult } from 'durable-react-agent/workflow';

// Subagents start the stock workflow by name, so a worker for this file exports it too.
export { reactAgentWorkflow } from 'durable-react-agent/workflow';

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
