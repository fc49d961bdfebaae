/**
 * `npm run bench`: durable-react-agent side by side with what users would pick instead, on one scripted
 * OpenAI-compatible model on loopback and the same no-op tool. Prints a table, writes bench/results/latest.json and
 * the plot docs/benchmarks.svg. A benchmark, not a test: it asserts nothing about time, only that every run finished
 * its script.
 *
 *   npm run bench [-- --only p1,p2,p3,p4,p5,p6,p7,p8] [--quick] [--rounds 3] [--parked 10000] [--cache 1000]
 *                 [--worker-node-options "--max-semi-space-size=2"]   (NODE_OPTIONS of the P4/P5 worker)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModel } from '../src/testing/scripted-model';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/worker/plugin';
import { runChild } from './child';
import type { DurableJob, HistoryRow } from './contenders/durable';
import type { ApprovalResult } from './contenders/durable-approvals';
import type { EventsResult } from './contenders/durable-events';
import type { ActionsRow } from './contenders/durable-actions';
import type { CheckpointRow, LangGraphJob } from './langgraph-protocol';
import { medianRound, type LoopJob, type LoopResult } from './measure';
import { printTable, renderSvg, type BenchResults } from './report';
import { scriptForBenchModel } from './scenario';
import { measureStartup } from './startup';

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const only = new Set((argument('--only') ?? 'p1,p2,p3,p4,p5,p6,p7,p8').split(','));

/** Sizes of a full run, and of `--quick` (a smoke run of every path in about a minute). */
const SCALE = quick
  ? { p1: { runs: 2, steps: 10 }, p2: { runs: 20, steps: 5 }, p3: [1, 10, 100], p4: 20, p5: 200, p6: 1, p7: 40, p8: 20 }
  : {
      p1: { runs: 5, steps: 20 },
      p2: { runs: 200, steps: 10 },
      p3: [1, 10, 100, 1000],
      p4: 200,
      p5: 10_000,
      p6: 3,
      p7: 200,
      p8: 20,
    };
/** The worker's workflow cache bound (the worker's default): far under P5's parked runs, most of which are evicted while they wait. */
const MAX_CACHED_WORKFLOWS = Number(argument('--cache') ?? (quick ? 50 : DEFAULT_MAX_CACHED_WORKFLOWS));
SCALE.p5 = Number(argument('--parked') ?? SCALE.p5);
/** P1's and P2's rounds (`--rounds N`): one round's figures swing more between runs than some contenders differ. */
const ROUNDS = Number(argument('--rounds') ?? (quick ? 1 : 3));
/** NODE_OPTIONS of the P4/P5 worker process: P5 is the figure that measures a worker's memory. */
const WORKER_NODE_OPTIONS = argument('--worker-node-options');

export const CONTENDERS = {
  plain: 'in-process loop (lower bound)',
  durable: 'durable-react-agent',
  durableEffectTool: 'durable-react-agent, tool with side effects (its own local activity)',
  durableRemoteTool: 'durable-react-agent, tool as a remote activity',
  durableAllLocal: 'durable-react-agent, model calls local too',
  sdkFloor: 'Temporal SDK floor (bare workflow, one local activity per step)',
  sdkFloorRemote: 'per-step-durable floor (bare workflow, one remote activity per step)',
  langgraph: 'LangGraph + SQLite (durability: async, its default)',
  langgraphSync: 'LangGraph + SQLite (durability: sync)',
  langgraphExit: 'LangGraph + SQLite (durability: exit)',
} as const;

/**
 * Contenders that failed, by label, with why. One failure (a LangGraph run that got "other side closed") used to
 * abort the whole bench after minutes and lose every figure; now the others are reported and the failure is named.
 */
const failures: Record<string, string> = {};

/** Runs a contender's child; a failure is recorded in {@link failures} and gives undefined instead of throwing. */
async function attemptChild<T>(script: string, job: object, label: string): Promise<T | undefined> {
  try {
    return await runChild<T>(script, job, label);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    failures[label] = reason;
    console.error(`  [${label}] FAILED: ${reason}; going on with the others`);
    return undefined;
  }
}

/** The entries that have a value: a failed contender has none. */
function present<T>(entries: Record<string, T | undefined>): Record<string, T> {
  return Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, T] => entry[1] !== undefined));
}

/** Runs one contender after another: they must never share the machine. */
async function sequence<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await run(item));
  return results;
}

/**
 * P1 or P2: every contender in turn, `--rounds` times (the rounds interleave the contenders, so a slow spell of the
 * machine lands on all of them), each contender's figure the median of its rounds.
 */
async function loopFigures(baseURL: string, figure: 'p1' | 'p2'): Promise<Record<string, LoopResult>> {
  const size = SCALE[figure];
  console.error(
    `${figure}: ${size.runs} agents × ${size.steps} steps, ${figure === 'p1' ? 1 : size.runs} at a time` +
      `${ROUNDS > 1 ? `, ${ROUNDS} rounds` : ''}`,
  );
  const results = await sequence(
    Array.from({ length: ROUNDS }, (_, round) => (ROUNDS > 1 ? `${figure}-r${round + 1}` : figure)),
    (prefix) => loopRound(baseURL, figure, prefix),
  );
  // A contender that failed in some round is the median of the rounds it finished.
  const names = [...new Set(results.flatMap((round) => Object.keys(round)))];
  return Object.fromEntries(
    names.map((name) => [name, medianRound(results.flatMap((round) => (round[name] ? [round[name]] : [])))]),
  );
}

/** One round of P1 or P2; `prefix` names its models apart from other rounds'. */
async function loopRound(baseURL: string, figure: 'p1' | 'p2', prefix: string): Promise<Record<string, LoopResult>> {
  const size = SCALE[figure];
  // Every contender gets its own model names (the tag): the scripted model counts calls per name.
  const job: LoopJob = { baseURL, ...size, concurrency: figure === 'p1' ? 1 : size.runs, tag: prefix };
  const durable = (tool: LoopJob['tool'], modelCalls: 'activity' | 'local'): DurableJob => ({
    kind: 'loop',
    ...job,
    tool,
    modelCalls,
    tag: `${prefix}-${tool}-${modelCalls}`,
    maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
  });
  return present({
    [CONTENDERS.plain]: await attemptChild<LoopResult>(
      'contenders/plain-loop.ts',
      { ...job, tag: `${prefix}-plain` },
      `${prefix} plain`,
    ),
    [CONTENDERS.durable]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      durable('noop', 'activity'),
      `${prefix} durable`,
    ),
    [CONTENDERS.durableEffectTool]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      durable('noop_effect', 'activity'),
      `${prefix} durable-effect-tool`,
    ),
    [CONTENDERS.durableRemoteTool]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      durable('noop_remote', 'activity'),
      `${prefix} durable-remote-tool`,
    ),
    [CONTENDERS.durableAllLocal]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      durable('noop', 'local'),
      `${prefix} durable-all-local`,
    ),
    [CONTENDERS.sdkFloor]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      {
        kind: 'sdk-floor',
        ...job,
        tag: `${prefix}-floor`,
        maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
      } satisfies DurableJob,
      `${prefix} sdk-floor`,
    ),
    [CONTENDERS.sdkFloorRemote]: await attemptChild<LoopResult>(
      'contenders/durable.ts',
      {
        kind: 'sdk-floor',
        remote: true,
        ...job,
        tag: `${prefix}-floor-remote`,
        maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
      } satisfies DurableJob,
      `${prefix} sdk-floor-remote`,
    ),
    ...Object.fromEntries(
      await sequence(
        [
          [CONTENDERS.langgraph, 'async'],
          [CONTENDERS.langgraphSync, 'sync'],
          [CONTENDERS.langgraphExit, 'exit'],
        ] as const,
        async ([name, durability]) => [
          name,
          await attemptChild<LoopResult>(
            'langgraph/contender.ts',
            { kind: 'loop', durability, ...job, tag: `${prefix}-langgraph-${durability}` } satisfies LangGraphJob,
            `${prefix} langgraph ${durability}`,
          ),
        ],
      ),
    ),
  });
}

async function main(): Promise<void> {
  const model = await startScriptedModel({ record: false, scriptFor: scriptForBenchModel });
  const results: BenchResults = {
    machine: {
      date: new Date().toISOString(),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    quick,
  };
  try {
    if (only.has('p1')) results.p1 = await loopFigures(model.baseURL, 'p1');
    if (only.has('p2')) results.p2 = await loopFigures(model.baseURL, 'p2');
    if (only.has('p3')) {
      console.error(`p3: history and checkpoint bytes at ${SCALE.p3.join(', ')} steps`);
      const p3 = {
        durable: await attemptChild<HistoryRow[]>(
          'contenders/durable.ts',
          { kind: 'history', baseURL: model.baseURL, sizes: SCALE.p3 } satisfies DurableJob,
          'p3 durable',
        ),
        langgraph: await attemptChild<CheckpointRow[]>(
          'langgraph/contender.ts',
          { kind: 'history', baseURL: model.baseURL, sizes: SCALE.p3 } satisfies LangGraphJob,
          'p3 langgraph',
        ),
      };
      // Whichever side finished is kept: the table shows '–' where the other's figures are missing.
      if (p3.durable || p3.langgraph) results.p3 = { durable: p3.durable ?? [], langgraph: p3.langgraph ?? [] };
    }
    if (only.has('p4') || only.has('p5')) {
      console.error(
        `p4/p5: ${SCALE.p4} timed decisions, then ${SCALE.p5} runs parked (workflow cache ${MAX_CACHED_WORKFLOWS}` +
          `${WORKER_NODE_OPTIONS ? `, worker NODE_OPTIONS ${WORKER_NODE_OPTIONS}` : ''})`,
      );
      const job: DurableJob = {
        kind: 'approvals',
        baseURL: model.baseURL,
        maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
        decisions: SCALE.p4,
        parked: only.has('p5') ? SCALE.p5 : 0,
        ...(WORKER_NODE_OPTIONS ? { workerNodeOptions: WORKER_NODE_OPTIONS } : {}),
      };
      const approvals = await attemptChild<ApprovalResult>('contenders/durable.ts', job, 'p4/p5 durable');
      if (approvals && only.has('p4')) results.p4 = approvals.latency;
      if (approvals && only.has('p5'))
        results.p5 = {
          ...approvals.parked,
          ...(WORKER_NODE_OPTIONS ? { workerNodeOptions: WORKER_NODE_OPTIONS } : {}),
        };
    }
    if (only.has('p7')) {
      console.error(`p7: latency of ${SCALE.p7} live events, history of a streamed 20-step run`);
      const p7 = await attemptChild<EventsResult>(
        'contenders/durable.ts',
        { kind: 'events', baseURL: model.baseURL, events: SCALE.p7, historySteps: 20 } satisfies DurableJob,
        'p7 durable',
      );
      if (p7) results.p7 = p7;
    }
    if (only.has('p8')) {
      console.error(`p8: engine actions of a ${SCALE.p8}-step run: quiet, followed by 1 and 3, streamed`);
      const p8 = await attemptChild<ActionsRow[]>(
        'contenders/durable.ts',
        { kind: 'actions', baseURL: model.baseURL, steps: SCALE.p8 } satisfies DurableJob,
        'p8 durable',
      );
      if (p8) results.p8 = p8;
    }
    if (only.has('p6')) {
      console.error(`p6: npm start to the first step, ${SCALE.p6} sample(s)`);
      try {
        results.p6 = await measureStartup(SCALE.p6);
      } catch (error) {
        failures.p6 = error instanceof Error ? error.message : String(error);
      }
    }
  } finally {
    await model.close();
  }
  if (Object.keys(failures).length > 0) results.failed = failures;
  const root = path.resolve(__dirname, '..');
  await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
  await writeFile(path.join(root, 'bench', 'results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  // The plot shows P1 to P3 of a full run: a partial or --quick run leaves the published plot alone.
  const plotted =
    !quick && Boolean(results.p1 && results.p2 && results.p3?.durable.length && results.p3.langgraph.length);
  if (plotted) await writeFile(path.join(root, 'docs', 'benchmarks.svg'), renderSvg(results));
  printTable(results);
  console.error(`wrote bench/results/latest.json${plotted ? ' and docs/benchmarks.svg' : ''}`);
  // The figures that were measured are written and shown; the exit code still says the bench was incomplete.
  if (results.failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
