import type { Client } from '@temporalio/client';
import { configOverrides, mergeConfig, validateAgentConfig, type AgentConfig } from '../shared/agent-config';
import type { ResolvedConfig } from '../shared/config';
import { carriedCostOf, formatUsd, ZERO_USAGE, addUsage, type TokenUsage } from '../shared/cost';
import { InvalidConfigError } from './errors';
import { DurableAgentError } from '../shared/errors';
import {
  type AgentWorkflowInput,
  type ReActStep,
  type ReActTrace,
  type RunLineage,
  type RunSeed,
} from '../shared/types';
import { type TerminationReason } from '../shared/termination-reasons';
import { firstRunInput, runStepOffsets } from './run-chain';
import { ARCHIVE_MAX_BYTES, fitSteps } from '../shared/step-archive';

/** A fork or continuation that cannot be made from this parent (bad step, wrong state, limit not raised). */
export class ForkRefusedError extends DurableAgentError {
  override readonly name = 'ForkRefusedError';
}

/** Options of `AgentClient.fork`. */
export interface ForkOptions {
  /** The steps of iterations 1..fromStep of the parent's trace are taken as recorded (numbered as `trace` prints them). */
  fromStep: number;
  /** Replaces step `fromStep`'s observation: what the model sees instead of what the tool said. */
  observation?: string;
  /** Fields to change in the parent's config (e.g. a raised `limits.maxIterations`, another `model`). */
  config?: AgentConfig;
  workflowId?: string;
  /** Defaults to the parent's task queue. */
  taskQueue?: string;
}

/** Options of `AgentClient.continue`: the limits to raise (totals are carried, so a raised limit is a new total). */
export interface ContinueOptions {
  maxIterations?: number;
  tokenBudget?: number;
  /** `limits.cost` in USD: the parent's spend is carried, so it must be more than that. */
  cost?: number;
  /** The continuation's own time budget: its clock starts when it starts. */
  timeoutSeconds?: number;
  /** Other fields to change in the parent's config. */
  config?: AgentConfig;
  workflowId?: string;
  taskQueue?: string;
}

/** A fork's or continuation's config changes, checked, to lay over the parent's config. */
function overridesOf(config: AgentConfig | undefined): AgentConfig {
  if (config === undefined) return {};
  const checked = configOverrides(config);
  if (!checked.ok) throw new InvalidConfigError(checked.message);
  return checked.overrides;
}

/** The reasons a finished run can be continued with: it stopped at a limit, or stalled. */
export const CONTINUABLE: readonly TerminationReason[] = [
  'max_iterations',
  'token_budget',
  'cost_budget',
  'timeout',
  'stalled',
];

/** What a fork or continuation needs to know about its parent. */
export interface ParentRun {
  workflowId: string;
  /** The chain's latest run. */
  runId: string;
  workflowType: string;
  taskQueue: string;
  status: string;
  input: AgentWorkflowInput;
  /** The chain's config as its first run resolved it (whatever shape its input was written in). */
  config: ResolvedConfig;
  /** The whole chain's trace, earlier runs' steps stitched in. */
  trace: ReActTrace;
  /** Where each run of the chain starts in `trace.steps`. */
  runOffsets: number[];
  /** The finished run's usage (prompt and completion); absent while it runs. */
  tokenUsage?: TokenUsage;
}

/** Reads what a fork needs of a run: its chain's first input, its stitched trace and where each run's steps start. */
export async function readParent(
  client: Client,
  workflowId: string,
  readTrace: () => Promise<{ trace: ReActTrace; tokenUsage?: TokenUsage }>,
): Promise<ParentRun> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const input = await firstRunInput(client, workflowId);
  if (!input || typeof input.query !== 'string')
    throw new ForkRefusedError(`${workflowId} is not an agent run: its start has no query`);
  // Read as the resolved record whichever shape the run was started with (the client sends it resolved; the Temporal
  // UI or another SDK may have sent the grouped config), so overrides and checks below read one shape.
  const config = validateAgentConfig(input.config ?? {});
  if (!config.ok) throw new ForkRefusedError(`${workflowId} started with a config no run accepts: ${config.message}`);
  const { trace, tokenUsage } = await readTrace();
  return {
    workflowId,
    runId: description.runId,
    workflowType: description.type,
    taskQueue: description.taskQueue,
    status: description.status.name,
    input,
    config: config.config,
    trace,
    runOffsets: await runStepOffsets(client, workflowId, description.runId),
    ...(tokenUsage ? { tokenUsage } : {}),
  };
}

/**
 * The first step the model saw in the parent when it made the reply after step `count`: all of them within the
 * chain's first run; after a hand-over, the `carrySteps` the run was handed plus its own (summaries are not
 * re-created: a parent that summarised showed its model the summary instead of the older steps).
 */
function windowStart(parent: ParentRun, count: number, carrySteps: number): number {
  const runStart = [...parent.runOffsets].reverse().find((offset) => offset < count) ?? 0;
  return runStart === 0 ? 0 : Math.max(0, runStart - carrySteps);
}

function countTools(steps: readonly ReActStep[], counts: (step: ReActStep) => boolean): Record<string, number> {
  const result: Record<string, number> = {};
  for (const step of steps)
    if (step.action.type === 'tool_call' && counts(step))
      result[step.action.tool] = (result[step.action.tool] ?? 0) + 1;
  return result;
}

/** Calls a person settled without running the tool. */
const NOT_RUN = new Set(['reject', 'respond', 'timeout']);

/**
 * Most bytes of steps a fork's or continuation's start input carries, as continue-as-new's archive: a long run's
 * stitched trace (5.5 MB for 300 steps) made the start request bigger than the server takes. The parent keeps every
 * step whole; the seed's clipped ones say where.
 */
export const SEED_MAX_BYTES = ARCHIVE_MAX_BYTES;

function seedFrom(parent: ParentRun, all: ReActStep[], lineage: RunLineage, totals?: RunSeed['totals']): RunSeed {
  const steps = fitSteps(all, SEED_MAX_BYTES, 'seed', true);
  if (!steps) {
    throw new ForkRefusedError(
      `${parent.workflowId}'s ${all.length} steps do not fit a new run's input even clipped: fork from an earlier step`,
    );
  }
  const last = steps[steps.length - 1];
  const iterations = last?.iteration ?? 0;
  const errorHistory = parent.trace.errorHistory.filter((entry) => entry.iteration <= iterations);
  const { carrySteps } = parent.config.history;
  return {
    lineage,
    steps,
    windowFrom: windowStart(parent, steps.length, Number.isFinite(carrySteps) ? carrySteps : 0),
    totals: totals ?? {
      iterations,
      usage: steps.reduce((sum, step) => addUsage(sum, step.tokenUsage ?? ZERO_USAGE), ZERO_USAGE),
      toolUsage: countTools(steps, () => true),
      toolRuns: countTools(steps, (step) => !NOT_RUN.has(step.decision?.kind ?? '')),
      errorHistory,
      rejectedThoughts: errorHistory.filter((entry) => entry.kind === 'invalid_thought').length,
    },
  };
}

/** Step numbers as ranges (`1-290, 295`): a long run's would otherwise fill the screen. */
function ranges(numbers: readonly number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < numbers.length;) {
    let end = index;
    while (end + 1 < numbers.length && numbers[end + 1] === numbers[end]! + 1) end++;
    parts.push(end > index ? `${numbers[index]}-${numbers[end]}` : String(numbers[index]));
    index = end + 1;
  }
  return parts.join(', ');
}

/**
 * The input of a fork: the parent's query and config (with changes), the steps of iterations 1..k as recorded. Steps
 * are numbered by iteration, as `trace` prints them; a reply with parallel calls is one step of several calls.
 */
export function forkInput(parent: ParentRun, options: ForkOptions): AgentWorkflowInput {
  const { steps } = parent.trace;
  const k = options.fromStep;
  const numbers = [...new Set(steps.map((step) => step.iteration))];
  const last = steps.filter((step) => step.iteration === k);
  if (!Number.isInteger(k) || last.length === 0)
    throw new ForkRefusedError(
      `--from-step must be one of the run's steps (${ranges(numbers) || 'it has none yet'}), got ${k}`,
    );
  if (last.some((step) => step.action.type === 'final_answer' || step.forced))
    throw new ForkRefusedError(`step ${k} is the run's final answer: fork from an earlier step`);
  if (parent.config.conversation.idleTimeout !== undefined)
    throw new ForkRefusedError('forking a conversation is not supported: fork a one-shot run');
  if (options.observation !== undefined && last.length > 1)
    throw new ForkRefusedError(
      `step ${k} made ${last.length} parallel calls: --observation can only replace the observation of a single call`,
    );
  const seeded = steps.filter((step) => step.iteration <= k);
  if (options.observation !== undefined) {
    const step = seeded[seeded.length - 1]!;
    const edited: ReActStep = { ...step, observation: options.observation, isError: false, edited: true };
    delete edited.observationData;
    delete edited.truncated;
    seeded[seeded.length - 1] = edited;
  }
  const lineage: RunLineage = {
    kind: 'fork',
    workflowId: parent.workflowId,
    runId: parent.runId,
    step: k,
    observationEdited: options.observation !== undefined,
  };
  return {
    query: parent.input.query,
    config: mergeConfig(parent.config, overridesOf(options.config)),
    seed: seedFrom(parent, seeded, lineage),
  };
}

/** The input of a continuation: every recorded step and the parent's totals, with raised limits. */
export function continueInput(parent: ParentRun, reason: TerminationReason | null, options: ContinueOptions) {
  if (parent.status !== 'COMPLETED' || reason === null || !CONTINUABLE.includes(reason))
    throw new ForkRefusedError(
      `only a finished run that stopped at ${CONTINUABLE.join(', ')} can be continued; ${parent.workflowId} ` +
        `${parent.status === 'COMPLETED' ? `ended with ${reason}` : `is ${parent.status.toLowerCase()}`} (fork it instead)`,
    );
  const { trace } = parent;
  const { maxIterations, tokenBudget, cost, timeoutSeconds } = options;
  const config = mergeConfig(mergeConfig(parent.config, overridesOf(options.config)), {
    limits: { maxIterations, tokenBudget, cost, timeoutSeconds },
  });
  if (reason === 'max_iterations' && !(config.limits.maxIterations > trace.totalIterations))
    throw new ForkRefusedError(
      `the run used ${trace.totalIterations} iterations: --max-iterations must be more than that to continue`,
    );
  if (reason === 'token_budget' && !((config.limits.tokenBudget ?? 0) > trace.totalTokens))
    throw new ForkRefusedError(`the run used ${trace.totalTokens} tokens: --token-budget must be more than that`);
  // The parent stopped short of its cap (the next call would have passed it), so the cap itself must be raised.
  const spent = trace.cost?.usd ?? 0;
  const cap = Math.max(parent.config.limits.cost ?? 0, spent);
  if (reason === 'cost_budget' && !((config.limits.cost ?? 0) > cap))
    throw new ForkRefusedError(
      `the run spent ${formatUsd(spent)} of its ${formatUsd(cap)} cost budget: --cost must be more than ${formatUsd(cap)} to continue`,
    );
  // The forced final answer was the parent's way of stopping; the continuation goes on from the step before it.
  const steps = trace.steps.filter((step) => !step.forced);
  const lineage: RunLineage = {
    kind: 'continue',
    workflowId: parent.workflowId,
    runId: parent.runId,
    step: steps[steps.length - 1]?.iteration ?? 0,
    observationEdited: false,
  };
  const usage = parent.tokenUsage ?? { ...ZERO_USAGE, totalTokens: trace.totalTokens };
  const seed = seedFrom(parent, steps, lineage, {
    iterations: trace.totalIterations,
    usage,
    toolUsage: trace.toolUsage,
    toolRuns: trace.toolRuns,
    errorHistory: trace.errorHistory.slice(-50),
    rejectedThoughts: trace.rejectedThoughts,
    ...(trace.cost ? { cost: carriedCostOf(trace.cost) } : {}),
  });
  return { query: parent.input.query, config, seed } satisfies AgentWorkflowInput;
}

/** One line for the Temporal UI's details and the CLI: where this run came from. */
export function lineageLine(lineage: RunLineage): string {
  const how = lineage.kind === 'fork' ? 'Forked from' : 'Continues';
  const edited = lineage.observationEdited ? ', its observation edited' : '';
  return `${how} ${lineage.workflowId} (run ${lineage.runId}) after step ${lineage.step}${edited}`;
}
