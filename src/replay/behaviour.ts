import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical';
import type { ReActStep } from '../shared/types';
import type { TerminationReason } from '../shared/termination-reasons';
import { clip } from '../shared/well-formed';

/*
 * What replay-check compares: what a user of the agent would notice changed. Not observations' wording or token
 * counts, which move with every prompt tweak, but which tools were called with which arguments, which calls waited
 * for a person and how those were settled, what the final answer was, and why the run stopped; plus each model
 * call's prompt, since a changed prompt means the recorded answers may no longer be what the model would say.
 */

/** One step as replay-check compares it. */
export interface BehaviourStep {
  iteration: number;
  action: ReActStep['action']['type'];
  /** `tool(args)` for a tool call, the question, `agent: task`, or the answer. */
  what: string;
  /** How a call that needed a person was settled (approve, reject, edit, respond, timeout). */
  approval?: string;
}

/** A run's behaviour: its steps, its end, and a fingerprint of each model call's prompt (null where unknown). */
export interface Behaviour {
  steps: BehaviourStep[];
  finalAnswer: string | null;
  /** The termination reason, or `failed` for a run that failed (e.g. a model error it could not get past). */
  ending: TerminationReason | 'failed' | 'unfinished';
  prompts: Array<string | null>;
}

/** One difference between the expected and the new behaviour. */
export interface BehaviourChange {
  kind: 'prompt' | 'tool_calls' | 'approvals' | 'final_answer' | 'termination';
  detail: string;
}

/** A prompt's fingerprint: short, stable, and the same for the same messages in any key order. */
export function promptFingerprint(messages: unknown): string {
  return createHash('sha256').update(canonicalJson(messages)).digest('hex').slice(0, 16);
}

function describeStep(step: ReActStep): string {
  const { action } = step;
  switch (action.type) {
    case 'tool_call':
      return `${action.tool}(${canonicalJson(action.args)})`;
    case 'final_answer':
      return action.answer;
    case 'clarification':
      return action.question;
    case 'delegate':
      return `${action.agent}: ${action.task}`;
  }
}

/**
 * How a step's call was settled (approve, reject, edit, respond, timeout), with ` (always)` for a standing approval.
 * Recordings made before decisions named their decider hold the kind alone as a string (`always` for the latter).
 */
export function approvalOf(step: ReActStep): string | undefined {
  const decision = step.decision as ReActStep['decision'] | string | undefined;
  if (decision === undefined) return undefined;
  if (typeof decision === 'string') return decision === 'always' ? 'approve (always)' : decision;
  return decision.always ? `${decision.kind} (always)` : decision.kind;
}

/** The behaviour of a trace's steps and its end. */
export function behaviourOf(
  steps: readonly ReActStep[],
  finalAnswer: string | null,
  ending: Behaviour['ending'],
  prompts: Array<string | null>,
): Behaviour {
  return {
    steps: steps.map((step) => ({
      iteration: step.iteration,
      action: step.action.type,
      what: describeStep(step),
      ...(step.decision ? { approval: approvalOf(step) } : {}),
    })),
    finalAnswer,
    ending,
    prompts,
  };
}

function firstDifference<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): number {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a[index];
    const y = b[index];
    if (x === undefined || y === undefined || !same(x, y)) return index;
  }
  return -1;
}

const calls = (behaviour: Behaviour) => behaviour.steps.filter((step) => step.action !== 'final_answer');
const approvals = (behaviour: Behaviour) => calls(behaviour).filter((step) => step.approval !== undefined);
const stepText = (step: BehaviourStep | undefined): string =>
  step
    ? `step ${step.iteration}: ${step.action === 'tool_call' ? '' : `${step.action} `}${clip(step.what, 160)}`
    : 'none';

/** What changed from `expected` to `actual`, first difference of each kind; empty when nothing a user sees did. */
export function compareBehaviour(expected: Behaviour, actual: Behaviour): BehaviourChange[] {
  const changes: BehaviourChange[] = [];
  const promptAt = firstDifference(expected.prompts, actual.prompts, (x, y) => x === null || y === null || x === y);
  if (promptAt >= 0 && promptAt < Math.min(expected.prompts.length, actual.prompts.length))
    changes.push({ kind: 'prompt', detail: `model call ${promptAt + 1} was sent another prompt than recorded` });
  const [was, now] = [calls(expected), calls(actual)];
  const callAt = firstDifference(was, now, (x, y) => x.action === y.action && x.what === y.what);
  if (callAt >= 0)
    changes.push({
      kind: 'tool_calls',
      detail: `call ${callAt + 1}: recorded ${stepText(was[callAt])}, now ${stepText(now[callAt])}`,
    });
  const [askedBefore, askedNow] = [approvals(expected), approvals(actual)];
  const approvalAt = firstDifference(askedBefore, askedNow, (x, y) => x.what === y.what && x.approval === y.approval);
  if (approvalAt >= 0) {
    const show = (step: BehaviourStep | undefined) => (step ? `${clip(step.what, 160)} → ${step.approval}` : 'none');
    changes.push({
      kind: 'approvals',
      detail: `approval ${approvalAt + 1}: recorded ${show(askedBefore[approvalAt])}, now ${show(askedNow[approvalAt])}`,
    });
  }
  if (expected.finalAnswer !== actual.finalAnswer)
    changes.push({
      kind: 'final_answer',
      detail: `recorded ${JSON.stringify(clip(expected.finalAnswer ?? '(none)', 160))}, now ${JSON.stringify(clip(actual.finalAnswer ?? '(none)', 160))}`,
    });
  if (expected.ending !== actual.ending)
    changes.push({ kind: 'termination', detail: `recorded ${expected.ending}, now ${actual.ending}` });
  return changes;
}
