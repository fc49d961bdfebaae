import { DEFAULT_MAX_ITERATIONS } from '../shared/config-defaults';
import type { ReActResult, ReActStep } from '../shared/types';
import type { StepVerdict } from './coherence';
import { mean, proportion, type Mean, type Proportion } from './stats';
import type { EvalTask } from './suite';

/** The PRD's targets for the five criteria. */
export const TARGETS = { coherence: 0.9, termination: 0.95, completeness: 1, recovery: 0.8, efficiency: 0.5 } as const;

/** One run of a task and what was judged of it. */
export interface RunRecord {
  task: EvalTask;
  workflowId: string;
  /** null when the run failed (e.g. the model endpoint refused); `error` says why. */
  result: ReActResult | null;
  error?: string;
  verdicts: StepVerdict[];
}

/** What one run scores on each criterion. */
export interface RunScore {
  taskId: string;
  category: string;
  terminationReason: string;
  expectedReasons: string[];
  /** The reason is one the task expects, and a success's answer contains what the task says it must. */
  terminationCorrect: boolean;
  traceComplete: boolean;
  /** Whether a tool failed during the run, and if so whether the run still ended correctly. */
  hadToolError: boolean;
  recovered: boolean | null;
  iterations: number;
  maxIterations: number;
  coherentSteps: number;
  judgedSteps: number;
}

/** The fields a step needs to be complete: the trace must let a person follow the run without guessing. */
function stepComplete(step: ReActStep): boolean {
  const usage = step.tokenUsage;
  return (
    // A forced final answer after a stop before any iteration is numbered 0.
    Number.isInteger(step.iteration) &&
    step.iteration >= 0 &&
    typeof step.thought === 'string' &&
    typeof step.action?.type === 'string' &&
    typeof step.timestamp === 'string' &&
    !Number.isNaN(Date.parse(step.timestamp)) &&
    typeof usage?.totalTokens === 'number' &&
    (step.action.type === 'final_answer' || typeof step.observation === 'string')
  );
}

/** Scores one run. */
export function scoreRun(record: RunRecord): RunScore {
  const { task, result } = record;
  const reason = result?.terminationReason ?? 'failed';
  const answer = (result?.finalAnswer ?? '').toLowerCase();
  const answered = task.expect.answerIncludes.every((text) => answer.includes(text.toLowerCase()));
  const reasonRight = (task.expect.reasons as string[]).includes(reason);
  const terminationCorrect = reasonRight && (reason !== 'success' || answered);
  const steps = result?.trace.steps ?? [];
  const hadToolError = steps.some((step) => step.action.type === 'tool_call' && step.isError === true);
  const maxIterations = Number(task.config.limits?.maxIterations ?? DEFAULT_MAX_ITERATIONS);
  return {
    taskId: task.id,
    category: task.category,
    terminationReason: reason,
    expectedReasons: task.expect.reasons,
    terminationCorrect,
    // A run stopped before its first step (a budget too small for one call) has a complete trace of no steps.
    traceComplete: result !== null && result.trace.terminationReason !== null && steps.every(stepComplete),
    hadToolError,
    recovered: hadToolError ? terminationCorrect : null,
    iterations: result?.trace.totalIterations ?? 0,
    maxIterations,
    coherentSteps: record.verdicts.filter((verdict) => verdict.coherent).length,
    judgedSteps: record.verdicts.length,
  };
}

/** The five criteria over a set of runs, each with its interval and whether it meets its target. */
export interface CriteriaSummary {
  runs: number;
  coherence: Proportion;
  termination: Proportion;
  completeness: Proportion;
  recovery: Proportion;
  /** Iterations used as a share of max_iterations, over the runs that did their task. */
  efficiency: Mean;
  meets: Record<keyof typeof TARGETS, boolean | null>;
}

/** Sums scores into the five criteria. */
export function summarize(scores: readonly RunScore[]): CriteriaSummary {
  const coherence = proportion(
    scores.reduce((sum, score) => sum + score.coherentSteps, 0),
    scores.reduce((sum, score) => sum + score.judgedSteps, 0),
  );
  const termination = proportion(scores.filter((score) => score.terminationCorrect).length, scores.length);
  const completeness = proportion(scores.filter((score) => score.traceComplete).length, scores.length);
  const withErrors = scores.filter((score) => score.recovered !== null);
  const recovery = proportion(withErrors.filter((score) => score.recovered).length, withErrors.length);
  const done = scores.filter((score) => score.terminationCorrect && score.terminationReason === 'success');
  const efficiency = mean(done.map((score) => score.iterations / score.maxIterations));
  const atLeast = (rate: number | null, target: number) => (rate === null ? null : rate >= target);
  return {
    runs: scores.length,
    coherence,
    termination,
    completeness,
    recovery,
    efficiency,
    meets: {
      coherence: atLeast(coherence.rate, TARGETS.coherence),
      termination: atLeast(termination.rate, TARGETS.termination),
      completeness: atLeast(completeness.rate, TARGETS.completeness),
      recovery: atLeast(recovery.rate, TARGETS.recovery),
      efficiency: efficiency.mean === null ? null : efficiency.mean < TARGETS.efficiency,
    },
  };
}
