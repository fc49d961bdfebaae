import { now } from './child';
import { benchModel, pool, type BenchTool } from './scenario';

/** P1 and P2: `runs` agents of `steps` steps, `concurrency` at a time, after one untimed warm-up run. */
export interface LoopJob {
  baseURL: string;
  runs: number;
  steps: number;
  concurrency: number;
  /** Which benchmark tool the agents call (only durable-react-agent has a local variant). */
  tool?: BenchTool;
  /** Distinguishes model names between jobs that share the scripted server. */
  tag: string;
}

export interface LoopResult {
  runs: number;
  steps: number;
  seconds: number;
  msPerStep: number;
  stepsPerSecond: number;
  /** P1 or P2 in several rounds: each round's ms per step, in run order (the figures above are the median round's). */
  roundsMsPerStep?: number[];
}

/** The models a job's runs use, in order; the warm-up run's comes first. */
export function loopModels(job: LoopJob): string[] {
  const tool = job.tool ?? 'noop';
  return [
    benchModel(tool, job.steps, `${job.tag}-warmup`),
    ...Array.from({ length: job.runs }, (_, i) => benchModel(tool, job.steps, `${job.tag}-${i}`)),
  ];
}

/** Times the job; `runAgent` runs one agent to its final answer on the given model. */
export async function measureLoop(job: LoopJob, runAgent: (model: string) => Promise<void>): Promise<LoopResult> {
  const [warmup = '', ...models] = loopModels(job);
  await runAgent(warmup);
  const started = now();
  await pool(models.length, job.concurrency, (i) => runAgent(models[i] ?? ''));
  const seconds = (now() - started) / 1000;
  const steps = job.runs * job.steps;
  return {
    runs: job.runs,
    steps: job.steps,
    seconds,
    msPerStep: (seconds * 1000) / steps,
    stepsPerSecond: steps / seconds,
  };
}

/**
 * One contender's rounds as one result: the round with the median time per step (the lower middle of an even count),
 * with every round's figure kept. One sequential round of a few agents swung a contender's figure by up to 40% between
 * runs here, more than the gaps between contenders; the median of interleaved rounds is steadier.
 */
export function medianRound(rounds: readonly LoopResult[]): LoopResult {
  const sorted = [...rounds].sort((a, b) => a.msPerStep - b.msPerStep);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error('medianRound needs at least one round');
  return { ...median, roundsMsPerStep: rounds.map((round) => round.msPerStep) };
}
