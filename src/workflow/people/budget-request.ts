import { condition } from '@temporalio/workflow';
import {
  BUDGET_APPROVERS,
  BUDGET_LIMIT_MAX,
  BUDGET_UNITS,
  FRACTIONAL_LIMITS,
  type AppliedBudgetDecision,
  type BudgetLimits,
  type BudgetLimit,
  type BudgetRecord,
} from '../../shared/budget';
import { refused, type ApprovalBook } from '../record/approval-book';
import { roundUsd } from '../../shared/cost';
import { formatDuration, parseDuration } from '../../shared/duration';
import { describeDecider, isApprover } from '../../shared/identity';
import { decideBudgetSignal, decideBudgetUpdate } from '../../shared/messages';
import { publishStatus } from '../record/agent-status';
import { installPersonInput, refuse } from './human-loop';
import { countDecision, countDecisionRequest } from '../record/metrics';
import { nowIso, stopRun, type RunState } from '../record/run-state';

const LIMIT_NAMES: Readonly<Record<BudgetLimit, string>> = {
  max_iterations: 'iteration limit',
  token_budget: 'token budget',
  timeout: 'time budget',
  cost_budget: 'cost budget',
};

/** The name each limit has in the budget's limits (and in `limits`). */
const FIELDS = {
  max_iterations: 'maxIterations',
  token_budget: 'tokenBudget',
  cost_budget: 'cost',
  timeout: 'timeoutSeconds',
} as const satisfies Record<BudgetLimit, keyof BudgetLimits>;

function currentLimit(limits: BudgetLimits, limit: BudgetLimit): number {
  return limits[FIELDS[limit]] ?? 0;
}

/**
 * A raise changes the budget's own limits, which the loop reads; continue-as-new hands them on in the next run's
 * config, so the raise lasts the whole chain.
 */
function raiseLimit(limits: BudgetLimits, limit: BudgetLimit, amount: number): void {
  const raised = currentLimit(limits, limit) + amount;
  limits[FIELDS[limit]] = limit === 'cost_budget' ? roundUsd(raised) : raised;
}

/**
 * A budget decision checked, and a raise past the limit's maximum (the config schema's) refused: the new limit goes
 * into the run's config, which nothing checks again.
 */
function checkBudget(
  state: RunState,
  payload: unknown,
  via: 'update' | 'signal',
): ReturnType<ApprovalBook['checkBudget']> {
  const checked = state.approvals.checkBudget(payload, via);
  if (!checked.ok || checked.value.decision.decision !== 'raise') return checked;
  const { amount } = checked.value.decision;
  if (
    amount !== undefined &&
    !Number.isInteger(amount) &&
    !FRACTIONAL_LIMITS.includes(checked.value.request.pending.limit)
  )
    return refused(
      'invalid_payload',
      `Invalid budget decision: amount: the ${LIMIT_NAMES[checked.value.request.pending.limit]} is raised by a whole number`,
    );
  // Like a tool's approvers: only they may raise, anyone may stop (the safe side, as a rejection is for a call).
  const approvers = state.config.approvals.approvers[BUDGET_APPROVERS];
  if (approvers && !isApprover(approvers, checked.value.by)) {
    const who = checked.value.by.identity ?? 'An anonymous sender';
    return refused(
      'not_allowed',
      `${who} may not raise the ${LIMIT_NAMES[checked.value.request.pending.limit]}; approvers: ${approvers.join(', ')}`,
    );
  }
  const { limit, current, suggested } = checked.value.request.pending;
  const raised = current + (amount ?? suggested);
  if (raised <= BUDGET_LIMIT_MAX[limit]) return checked;
  return refused(
    'invalid_payload',
    `Invalid budget decision: raising the ${LIMIT_NAMES[limit]} to ${raised} would pass its maximum of ${BUDGET_LIMIT_MAX[limit]}`,
  );
}

function decideBudget(state: RunState, payload: unknown, via: 'update' | 'signal'): AppliedBudgetDecision {
  const checked = checkBudget(state, payload, via);
  if (!checked.ok) throw refuse(checked);
  const { request, decision, by } = checked.value;
  const { requestId, limit, current, suggested } = request.pending;
  // The raise is resolved here, once: the reply, the trace and the new limit all use this amount.
  const amount = decision.decision === 'raise' ? (decision.amount ?? suggested) : undefined;
  request.decided = { outcome: decision.decision, by, ...(amount !== undefined ? { amount } : {}) };
  if (amount === undefined) return { requestId, limit, decision: 'stop', by };
  return { requestId, limit, decision: 'raise', amount, newLimit: roundUsd(current + amount), by };
}

/** Installs the `decideBudget` update (validated before it enters history) and signal. */
export function installBudgetHandlers(state: RunState): void {
  installPersonInput(
    state,
    decideBudgetUpdate,
    decideBudgetSignal,
    (payload) => checkBudget(state, payload, 'update'),
    (payload, via) => decideBudget(state, payload, via),
  );
}

/** The budget record as this file writes it: every other file reads it only. */
function writableBudget(state: RunState): { limits: BudgetLimits; requests: BudgetRecord[]; timeUp: string | null } {
  return state.budget as { limits: BudgetLimits; requests: BudgetRecord[]; timeUp: string | null };
}

/** Notes that the time budget ran out (its detail), or that the request it opened was settled (null). */
export function markTimeUp(state: RunState, detail: string | null): void {
  writableBudget(state).timeUp = detail;
}

/** Opens a request to raise `limit` (one at a time); a person sees it with the pending calls. */
export function openBudgetRequest(state: RunState, limit: BudgetLimit, detail: string): void {
  if (state.approvals.budget) return;
  const current = currentLimit(state.budget.limits, limit);
  // Money is raised by the limit's own size (a $0.05 budget by $0.05); counts by at least 1.
  const suggested = limit === 'cost_budget' ? current : Math.max(1, current);
  const unit = BUDGET_UNITS[limit];
  const ms = parseDuration(state.config.approvals.timeout) ?? 24 * 3_600_000;
  const now = Date.now();
  // Numbered over the chain (the records are carried), so an ID is never reused by a later request.
  const requestId = `b${state.budget.requests.length + 1}`;
  state.approvals.askBudget({
    requestId,
    limit,
    question: `Raise the ${LIMIT_NAMES[limit]} from ${current} to ${roundUsd(current + suggested)} ${unit}?`,
    current,
    suggested,
    unit,
    detail,
    requestedAt: new Date(now).toISOString(),
    deadline: new Date(now + ms).toISOString(),
  });
  countDecisionRequest();
  state.events.emit({ type: 'budget_requested', requestId, limit, current, suggested });
  publishStatus(state);
}

/**
 * Waits, until its deadline, for the pending budget request's decision. A raise grows the limit and returns true;
 * `stop`, or no decision in time, stops the run with the limit's own reason, as it would have without asking.
 */
export async function settleBudgetRequest(state: RunState): Promise<boolean> {
  const request = state.approvals.budget;
  if (!request) return true;
  const { pending } = request;
  const remainingMs = Date.parse(pending.deadline) - Date.now();
  await condition(() => request.decided !== undefined, Math.max(remainingMs, 1));
  state.approvals.endBudget();
  const decided = request.decided;
  const record: BudgetRecord = {
    requestId: pending.requestId,
    limit: pending.limit,
    from: pending.current,
    ...(decided ?? { outcome: 'timeout' }),
    requestedAt: pending.requestedAt,
    decidedAt: nowIso(),
  };
  writableBudget(state).requests.push(record);
  countDecision(record.outcome === 'raise' ? 'approve' : record.outcome === 'stop' ? 'reject' : 'timeout');
  state.events.emit({
    type: 'budget_decided',
    requestId: record.requestId,
    outcome: record.outcome,
    ...(record.amount !== undefined ? { amount: record.amount } : {}),
    ...(record.by ? { by: record.by } : {}),
  });
  if (record.outcome === 'raise' && record.amount !== undefined) {
    raiseLimit(writableBudget(state).limits, pending.limit, record.amount);
    publishStatus(state);
    return true;
  }
  const why =
    record.outcome === 'stop'
      ? `${describeDecider(record.by)} chose to stop there`
      : `nobody raised it within ${formatDuration(Date.parse(pending.deadline) - Date.parse(pending.requestedAt))}`;
  stopRun(state, pending.limit, `${pending.detail}; ${why}`);
  publishStatus(state);
  return false;
}

/**
 * The loop reached `limit`: stop as always, or (`limits.onReached: 'ask'`) ask a person and wait. While the time budget's own
 * request waits, nothing else is asked: the loop settles that one first, then meets this limit again.
 */
export async function reachLimit(state: RunState, limit: BudgetLimit, detail: string): Promise<void> {
  if (state.config.limits.onReached !== 'ask') return stopRun(state, limit, detail);
  if (state.approvals.budget) return;
  openBudgetRequest(state, limit, detail);
  await settleBudgetRequest(state);
}
