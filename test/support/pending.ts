import type { AgentClient } from '../../src/client/agent-client';
import type { PendingDecisions } from '../../src/shared/approvals';
import type { PendingBudget } from '../../src/shared/budget';

/** Polls until a run waits for at least `approvals` decisions (a given call, a question, when asked) and returns them. */
export async function waitForPending(
  harness: { agents: Pick<AgentClient, 'handle'> },
  workflowId: string,
  expect: { approvals?: number; question?: boolean; callId?: string } = { approvals: 1 },
): Promise<PendingDecisions> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const pending = await harness.agents
      .handle(workflowId)
      .getPending()
      .catch(() => null);
    const enough = (pending?.approvals.length ?? 0) >= (expect.approvals ?? 0);
    const hasCall = !expect.callId || pending?.approvals.some((call) => call.callId === expect.callId);
    if (pending && enough && hasCall && (!expect.question || pending.question)) return pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${workflowId} did not reach the expected pending state in 15 s`);
}

/** Polls until the run asks for a budget raise (request `requestId`, when given); returns the request. */
export async function waitForBudget(
  agents: Pick<AgentClient, 'handle'>,
  workflowId: string,
  requestId?: string,
): Promise<PendingBudget> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const { budget } = await agents
      .handle(workflowId)
      .getPending()
      .catch(() => ({ budget: null }));
    if (budget && (!requestId || budget.requestId === requestId)) return budget;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${workflowId} did not ask for a budget raise in 15 s`);
}
