import { randomUUID } from 'node:crypto';
import type { AgentClient } from '../client/agent-client';
import type { AgentErrorKind } from '../shared/types';
import type { Personality } from '../testing/personalities';
import type { ScriptedModelServer } from '../testing/scripted-model';
import { scoreRun, summarize, type CriteriaSummary, type RunRecord, type RunScore } from './criteria';
import { runSuite, type RunSuiteOptions } from './runner';
import { GOOD_AGENT } from './scripted-agent';
import type { EvalTask } from './suite';

/*
 * The eval on personalities (`eval --scripted`): the good scripted agent does the suite while the scripted model
 * replies in the shape of one kind of real server. The agent's behaviour is the same in every personality, so what
 * changes in the numbers is how well the reply reader understands that server.
 *
 * Seeds: a run's seed is the eval's seed plus its repeat (the first repeat is seed 000). The scripted agent has no
 * randomness; the seed only shifts where sloppy-text's cycle of reply forms starts, offset by the task's position in
 * the suite so the suite's first replies go through every form.
 */

/** Error kinds that mean the agent refused a reply and asked the model again. */
const REFUSALS: ReadonlySet<AgentErrorKind> = new Set(['malformed_output', 'invalid_thought', 'invalid_arguments']);

/** How an eval on one personality runs. */
export interface ScriptedEvalOptions {
  agents: AgentClient;
  /** The scripted model the worker's OpenAI client talks to. */
  model: ScriptedModelServer;
  personality: Personality;
  tasks: readonly EvalTask[];
  /** The first repeat's seed (default 0). */
  seed?: number;
  repeat?: number;
  concurrency?: number;
  onProgress?: RunSuiteOptions['onProgress'];
}

/** One personality's runs and what they scored. */
export interface ScriptedEvalResult {
  personality: Personality;
  seed: number;
  repeat: number;
  records: RunRecord[];
  scores: RunScore[];
  summary: CriteriaSummary;
  /** Runs that ended without a result: the run failed (a reply or an endpoint error the worker gave up on). */
  lost: number;
  /** Replies the agent refused and asked the model again for (unreadable, a refused thought, bad arguments). */
  refused: number;
}

/** The tasks the scripted agent has no script for (it knows the shipped suite's). */
export function unscriptedTasks(tasks: readonly EvalTask[]): string[] {
  return tasks.filter((task) => !(task.id in GOOD_AGENT)).map((task) => task.id);
}

/** The seed label of an eval: `seed 000`, or `seeds 000–002` for three repeats. */
export function seedLabel(seed: number, repeat = 1): string {
  const three = (value: number) => String(value).padStart(3, '0');
  return repeat > 1 ? `seeds ${three(seed)}–${three(seed + repeat - 1)}` : `seed ${three(seed)}`;
}

/**
 * Runs `tasks` with the good scripted agent replying as `personality`, and scores them. `sloppy-text` is a text-mode
 * personality, so its runs use `modelSettings.toolCalling: 'text'`; the others run with native tool calling.
 */
export async function runScriptedEval(options: ScriptedEvalOptions): Promise<ScriptedEvalResult> {
  const { personality, seed = 0, repeat = 1 } = options;
  const missing = unscriptedTasks(options.tasks);
  if (missing.length > 0) throw new Error(`the scripted agent has no script for task(s) ${missing.join(', ')}`);
  const tasks =
    personality === 'sloppy-text'
      ? options.tasks.map((task) => ({
          ...task,
          config: { ...task.config, modelSettings: { ...task.config.modelSettings, toolCalling: 'text' as const } },
        }))
      : options.tasks;
  const repeatsStarted = new Map<EvalTask, number>();
  const records = await runSuite({
    agents: options.agents,
    tasks,
    repeat,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    // Called once per run, in suite order (a task's repeats in turn): each run gets a script of its own, since the
    // scripts count their turns per model.
    modelFor: (task) => {
      const repeatIndex = repeatsStarted.get(task) ?? 0;
      repeatsStarted.set(task, repeatIndex + 1);
      const model = `scripted-${personality}-${task.id}-${randomUUID()}`;
      options.model.script(model, GOOD_AGENT[task.id]!, {
        personality,
        seed: seed + repeatIndex + tasks.indexOf(task),
      });
      return model;
    },
  });
  const scores = records.map(scoreRun);
  const refused = records.reduce(
    (sum, record) => sum + (record.result?.trace.errorHistory.filter((error) => REFUSALS.has(error.kind)).length ?? 0),
    0,
  );
  return {
    personality,
    seed,
    repeat,
    records,
    scores,
    summary: summarize(scores),
    lost: records.filter((record) => record.result === null).length,
    refused,
  };
}
