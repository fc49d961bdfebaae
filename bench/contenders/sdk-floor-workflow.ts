/**
 * The Temporal SDK floor (P1, P2): the least a durable ReAct step can cost on this SDK. The workflow keeps the
 * conversation and nothing else; each step is ONE local activity that calls the model and runs the no-op tool it
 * asked for. No validation, budgets, trace, status, approvals or separate tool activity: whatever our agent costs
 * above this row is ours to cut; this row itself is the SDK's and the server's.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { openingMessages } from '../scenario';
import type { FloorActivities, FloorMessage } from './sdk-floor-activities';

const { floorStep } = proxyLocalActivities<FloorActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 1 },
});

// The per-step-durable floor: the same step as a remote activity, whose result the server records before the workflow
// goes on, as every step of an agent that survives a worker crash mid-step must be.
const remote = proxyActivities<FloorActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 1 } });

/** Runs the agent on `model` until it answers; returns how many model calls that took. */
export async function sdkFloorAgent(model: string): Promise<number> {
  return floorLoop(model, floorStep);
}

/** The same agent with each step a remote activity: one server round trip per step, the per-step-durable floor. */
export async function sdkFloorRemoteAgent(model: string): Promise<number> {
  return floorLoop(model, remote.floorStep);
}

async function floorLoop(model: string, step: FloorActivities['floorStep']): Promise<number> {
  const messages: FloorMessage[] = openingMessages();
  for (let calls = 1; ; calls++) {
    const added = await step(model, messages);
    messages.push(...added);
    // Only the assistant's message came back: it called no tool, so that was the answer.
    if (added.length === 1) return calls;
  }
}
