import {
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { roundUsd, type RunCost } from '../../shared/cost';
import { BUDGET_APPROVERS } from '../../shared/budget';
import type { AgentConfig } from '../../shared/config';
import { AGENT_WORKFLOW_TYPE } from '../../shared/messages';
import { parseDelegation, type ParsedToolCall } from '../../shared/protocol';
import { errorObservation, truncateToTokens } from '../../shared/observation';
import { AgentStatusKey } from '../../shared/search-attributes';
import type { ToolObservation } from '../../shared/tool-protocol';
import type { AgentWorkflowInput, ReActResult, ReActTrace } from '../../shared/types';
import { recordUsage, type RunState } from '../record/run-state';
import { hasHooks } from '../hooks';
import { addSubagentCost, spentUsd } from '../record/cost-ledger';

/** The cost in the trace a failed child attached to its failure (a model error), if it attached one. */
function failedChildCost(error: unknown): RunCost | undefined {
  if (!(error instanceof ChildWorkflowFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  const trace = error.cause.details?.[0] as Partial<ReActTrace> | undefined;
  return typeof trace === 'object' && trace !== null ? trace.cost : undefined;
}

/** What a delegation produced: the subagent's answer as the observation, and its workflow ID for the trace. */
export interface Delegation {
  observation: ToolObservation;
  childWorkflowId?: string;
}

/**
 * The workflow a subagent runs: the run's own when it has hooks (a user's workflow around the loop), so the hooks
 * guard the subagent's calls too; the stock agent otherwise.
 */
function childType(state: RunState): string {
  return hasHooks(state.hooks) ? workflowInfo().workflowType : AGENT_WORKFLOW_TYPE;
}

/**
 * The child's config: the parent's, with the subagent's overrides and whatever is left of the token budget (which
 * the child combines with `maxTokens` like any run).
 */
function childConfig(
  state: RunState,
  agent: string,
  remaining: { tokens: number | undefined; usd: number | undefined },
): AgentConfig {
  const { subagents, ...parent } = state.config;
  const sub = subagents[agent];
  const tools = sub?.tools ?? parent.tools;
  // The child refuses confirmation settings that name tools it does not have, so it gets only those of its tools.
  const ofChild = (names: readonly string[]) =>
    tools === undefined ? [...names] : names.filter((name) => tools.includes(name));
  const { approvals } = parent;
  return {
    ...parent,
    subagents: {}, // one level: a subagent does not delegate further
    // A subagent answers its one task: as a conversation it would sit out the idle timeout before its parent went on.
    conversation: {},
    systemPrompt: sub?.systemPrompt ?? parent.systemPrompt,
    tools,
    approvals: {
      ...approvals,
      require: ofChild(approvals.require),
      skip: ofChild(approvals.skip),
      approvers: Object.fromEntries(
        Object.entries(approvals.approvers).filter(
          ([name]) => tools === undefined || tools.includes(name) || name === BUDGET_APPROVERS,
        ),
      ),
    },
    model: sub?.model ?? parent.model,
    // Model settings are tuned for a model, so like the model they are inherited unless the subagent sets its own.
    modelSettings: { ...parent.modelSettings, ...sub?.modelSettings },
    limits: {
      ...parent.limits,
      maxIterations: sub?.limits?.maxIterations ?? state.budget.limits.maxIterations,
      timeoutSeconds: sub?.limits?.timeoutSeconds,
      tokenBudget: remaining.tokens,
      // The parent's cost budget covers the child's cost: the child gets what is left of it as its own, checked
      // before each of its calls. Its cost reaches the parent only when it returns, so a child with no cap of its own
      // could spend any amount first.
      cost: remaining.usd,
    },
  };
}

/**
 * Runs a subagent as a child workflow. Cancelling the parent cancels it (it is started in the parent's scope); its
 * approvals show up in `pending` under its own workflow ID; its tokens count against the parent's budget.
 */
export async function delegate(state: RunState, call: ParsedToolCall): Promise<Delegation> {
  const names = Object.keys(state.config.subagents);
  const args = parseDelegation(call.args);
  if (!args)
    return {
      observation: errorObservation(
        call.tool,
        call.args,
        'delegate needs {"agent": "<name>", "task": "<task>"}',
        'invalid_arguments',
      ),
    };
  if (!state.config.subagents[args.agent]) {
    return {
      observation: errorObservation(
        call.tool,
        call.args,
        `unknown subagent "${args.agent}"; subagents: ${names.join(', ')}`,
        'invalid_arguments',
      ),
    };
  }
  const costBudget = state.budget.limits.cost;
  if (costBudget === undefined) return runWithinBudgets(state, call, args, undefined);
  // Delegations of one reply take turns under a cost cap: each child is handed what the ones before it left. Started
  // together, every one of them got the whole remainder, and parallel children spent it several times over.
  const before = costedTurns.get(state.cost) ?? Promise.resolve();
  let done = (): void => undefined;
  costedTurns.set(state.cost, new Promise<void>((resolve) => (done = resolve)));
  try {
    await before;
    return await runWithinBudgets(state, call, args, costBudget);
  } finally {
    done();
  }
}

/** The last costed delegation of each run, which the next one waits for (keyed by the run's ledger). */
const costedTurns = new WeakMap<object, Promise<void>>();
/**
 * What the run handed to children that ended without saying what they spent (terminated, timed out): counted as spent
 * when the next child is handed its share, or it would be handed the same money again.
 */
const unreported = new WeakMap<object, number>();

/** Runs the child with what is left of the parent's budgets as its own, or refuses when nothing is. */
function runWithinBudgets(
  state: RunState,
  call: ParsedToolCall,
  args: { agent: string; task: string },
  costBudget: number | undefined,
): Promise<Delegation> | Delegation {
  const budget = state.budget.limits.tokenBudget;
  const tokens = budget === undefined ? undefined : budget - state.counters.usage.totalTokens;
  if (tokens !== undefined && tokens <= 0)
    return {
      observation: errorObservation(call.tool, call.args, 'no token budget is left for a subagent', 'tool_limit'),
    };
  const usd =
    costBudget === undefined
      ? undefined
      : roundUsd(costBudget - spentUsd(state.cost) - (unreported.get(state.cost) ?? 0));
  if (usd !== undefined && usd <= 0)
    return {
      observation: errorObservation(call.tool, call.args, 'no cost budget is left for a subagent', 'tool_limit'),
    };
  return runChild(state, call, args, tokens, usd);
}

async function runChild(
  state: RunState,
  call: ParsedToolCall,
  args: { agent: string; task: string },
  tokens: number | undefined,
  usd: number | undefined,
): Promise<Delegation> {
  const childWorkflowId = `${state.workflowId}/${call.callId}-${args.agent}`;
  const input: AgentWorkflowInput = { query: args.task, config: childConfig(state, args.agent, { tokens, usd }) };
  // Queries only: a client asking what the run waits for is pointed at the child, whose approvals are its own.
  state.approvals.delegate({ callId: call.callId, agent: args.agent, workflowId: childWorkflowId });
  state.events.emit({ type: 'subagent_started', callId: call.callId, agent: args.agent, childWorkflowId });
  try {
    const result = await executeChild<(input: AgentWorkflowInput) => Promise<ReActResult>>(childType(state), {
      workflowId: childWorkflowId,
      args: [input],
      staticSummary: `delegate · ${args.agent}`,
      ...(state.searchAttributes ? { typedSearchAttributes: [{ key: AgentStatusKey, value: 'Running' }] } : {}),
    });
    recordUsage(state, result.tokenUsage);
    // The child's cost (its chain, its tokens priced at its own model's price) is part of the parent's.
    addSubagentCost(state.cost, childWorkflowId, result.trace.cost);
    const answer = result.finalAnswer ?? `(${args.agent} stopped without an answer: ${result.terminationReason})`;
    // A subagent's answer is an observation like any other: bounded the same way.
    const { text, truncated } = truncateToTokens(answer, state.config.history.maxObservationTokens);
    const data = {
      workflowId: childWorkflowId,
      terminationReason: result.terminationReason,
      iterations: result.trace.totalIterations,
    };
    return { observation: { text, isError: !result.success, truncated, data }, childWorkflowId };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure && error.cause ? error.cause.message : String(error);
    // A child that failed on a model error attached its trace: what it spent before failing is still spent.
    const spent = failedChildCost(error);
    addSubagentCost(state.cost, childWorkflowId, spent);
    if (spent === undefined && usd !== undefined) unreported.set(state.cost, (unreported.get(state.cost) ?? 0) + usd);
    return {
      observation: errorObservation(call.tool, call.args, `subagent ${args.agent} failed: ${cause}`, 'tool_error'),
      childWorkflowId,
    };
  } finally {
    state.approvals.endDelegation(childWorkflowId);
  }
}
