import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { hasModelEndpoint, readEnv } from '../common/env';
import { scoreRun, summarize } from '../eval/criteria';
import { createEvalTools } from '../eval/eval-tools';
import { labelAgreement, RUBRIC_FILE } from '../eval/labels';
import { formatPersonalityTable, formatSummary, formatTasks, plotSvg, reportJson } from '../eval/report';
import { runSuite } from '../eval/runner';
import { runScriptedEval, seedLabel, unscriptedTasks, type ScriptedEvalResult } from '../eval/scripted-eval';
import { DEFAULT_SUITE, loadSuite, type EvalSuite } from '../eval/suite';
import { PERSONALITIES, type Personality } from '../testing/personalities';
import { startScriptedModel } from '../testing/scripted-model';
import { createOpenAIClient } from '../worker/index';
import { createBuiltinTools } from '../worker/tools/builtin';
import { ToolRegistry } from '../worker/tools/registry';
import { readFileSync } from 'node:fs';
import { loadToolsModule } from '../worker/tools/tools-module';
import { nonNegativeInteger, parseCommandArgs, positiveInteger, UsageError } from './args';
import { connectClient, connectServer, startOwnWorker, type Cleanup } from './run-command';

type Say = (line: string) => void;

/** Where the file tools of the shipped suite's code-analysis task look. */
const SAMPLE_CODEBASE = path.resolve(__dirname, '..', '..', 'examples', 'code-analysis', 'sample-codebase');

function progress(say: Say): (done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  return (done, total) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} runs`;
    if (tty) process.stderr.write(`\r${bar}${done === total ? '\n' : ''}`);
    else say(bar);
  };
}

/** `--scripted` may come bare (meaning `plain`); parseArgs wants a value, so a bare flag is given one here. */
function withScriptedValue(argv: string[]): string[] {
  return argv.flatMap((arg, index) => {
    const next = argv[index + 1];
    return arg === '--scripted' && (next === undefined || next.startsWith('-')) ? [arg, 'plain'] : [arg];
  });
}

/** The personalities `--scripted` names: one of them, or `all`. */
function personalitiesOf(value: string): Personality[] {
  if (value === 'all') return [...PERSONALITIES];
  const known = PERSONALITIES as readonly string[];
  if (!known.includes(value))
    throw new UsageError(`--scripted expects one of ${PERSONALITIES.join(', ')} or all, got "${value}"`);
  return [value as Personality];
}

/** What the scripted eval needs besides the suite: where runs go and how the output is written. */
interface ScriptedRun {
  agents: AgentClient;
  model: Awaited<ReturnType<typeof startScriptedModel>>;
  suite: EvalSuite;
  personalities: Personality[];
  seed: number;
  repeat: number;
  concurrency: number;
  outDir: string;
  json: boolean;
}

/**
 * The eval on personalities: the good scripted agent plays the suite once per personality; each gets its block (per
 * task, then the five criteria) and its report in `<out>/<personality>/`, and several end with one table.
 */
async function scriptedEval(run: ScriptedRun, out: Say, say: Say): Promise<void> {
  const results: ScriptedEvalResult[] = [];
  const reports: object[] = [];
  for (const personality of run.personalities) {
    say(`Personality ${personality}:`);
    const result = await runScriptedEval({
      agents: run.agents,
      model: run.model,
      personality,
      tasks: run.suite.tasks,
      seed: run.seed,
      repeat: run.repeat,
      concurrency: run.concurrency,
      onProgress: progress(say),
    });
    results.push(result);
    const dir = path.join(run.outDir, personality);
    mkdirSync(dir, { recursive: true });
    const report = reportJson(run.suite.name, result.summary, result.records, result.scores, {
      personality,
      seed: run.seed,
      repeat: run.repeat,
      lost: result.lost,
      refused: result.refused,
    });
    reports.push(report);
    writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(path.join(dir, 'report.svg'), plotSvg(result.summary, `${run.suite.name}, ${personality}`));
    if (run.json) continue;
    out(`## ${personality} (${seedLabel(run.seed, run.repeat)})`);
    for (const line of formatTasks(result.scores)) out(line);
    out('');
    for (const line of formatSummary(result.summary)) out(line);
    out(
      `runs lost to errors: ${result.lost}/${result.records.length}; replies refused and asked again: ${result.refused}`,
    );
    for (const record of result.records.filter((candidate) => candidate.error !== undefined))
      out(`  lost: ${record.task.id}: ${record.error!.split('\n')[0]!.slice(0, 200)}`);
    out('');
  }
  if (run.json) out(JSON.stringify({ suite: run.suite.name, seed: run.seed, repeat: run.repeat, reports }));
  else if (results.length > 1) {
    out(`Eval on personalities (${seedLabel(run.seed, run.repeat)}, ${run.suite.tasks.length} tasks × ${run.repeat}):`);
    for (const line of formatPersonalityTable(results)) out(line);
  }
  say(`Reports: ${path.join(run.outDir, '<personality>', 'report.json')} and report.svg`);
}

/**
 * `durable-react-agent eval`: runs a task suite as durable runs against the configured OpenAI-compatible endpoint and
 * prints the five success criteria with counts and 95% intervals, per task and overall; writes a JSON report and a plot.
 * With `--scripted [personality|all]` the scripted model in this process replies instead, in each personality's shape.
 */
export async function evalCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const { values, positionals } = parseCommandArgs(withScriptedValue(argv), {
    suite: { type: 'string' },
    model: { type: 'string' },
    'judge-model': { type: 'string' },
    concurrency: { type: 'string' },
    repeat: { type: 'string' },
    out: { type: 'string' },
    root: { type: 'string' },
    'tools-module': { type: 'string' },
    json: { type: 'boolean', default: false },
    scripted: { type: 'string' },
    seed: { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`eval takes no arguments, got "${positionals[0]}"`);
  const env = readEnv();
  const personalities = values.scripted === undefined ? undefined : personalitiesOf(values.scripted);
  const seed = nonNegativeInteger('seed', values.seed) ?? 0;
  if (personalities) {
    if (values.model) throw new UsageError('--model: with --scripted the model is the scripted one');
    if (values['judge-model']) throw new UsageError('--judge-model needs an endpoint; --scripted runs without one');
  } else if (!hasModelEndpoint(env))
    throw new UsageError(
      'eval needs a model endpoint: set OPENAI_BASE_URL (Ollama, vLLM, …) and/or OPENAI_API_KEY, or use --scripted',
    );
  const suiteFile = values.suite ?? DEFAULT_SUITE;
  let suite;
  try {
    suite = loadSuite(suiteFile);
  } catch (error) {
    throw new UsageError(`invalid suite: ${(error as Error).message}`);
  }
  const unscripted = personalities ? unscriptedTasks(suite.tasks) : [];
  if (unscripted.length > 0)
    throw new UsageError(`--scripted plays the shipped suite's tasks; this suite also has ${unscripted.join(', ')}`);
  const concurrency = positiveInteger('concurrency', values.concurrency) ?? 4;
  const repeat = positiveInteger('repeat', values.repeat) ?? 1;
  const endpoint = createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL });
  const judgeModel = values['judge-model'];
  const judge = judgeModel
    ? { openai: endpoint, model: judgeModel, rubric: readFileSync(RUBRIC_FILE, 'utf8') }
    : undefined;
  const outDir = path.resolve(values.out ?? path.join('.data', 'eval', new Date().toISOString().replace(/[:.]/g, '-')));

  // The SDK's native side prints its own log lines to stdout unless forwarded: stdout carries the answer, so
  // they go through the logger, to stderr.
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { forward: {} } } });
  const cleanups: Cleanup[] = [];
  try {
    const server = await connectServer(env, say, cleanups);
    // The scripted model is closed after the worker (cleanups run last first): no model call is cut off.
    const scripted = personalities ? await startScriptedModel() : undefined;
    if (scripted) cleanups.push(() => scripted.close());
    const openai = scripted ? createOpenAIClient({ baseURL: scripted.baseURL }) : endpoint;
    const taskQueue = `eval-${randomUUID()}`;
    // A suite's own tools (e.g. the text-to-SQL example's) come from a module that exports them.
    const extra = values['tools-module'] ? await loadToolsModule(path.resolve(values['tools-module'])) : [];
    const registry = new ToolRegistry([
      ...createBuiltinTools({ root: values.root ?? SAMPLE_CODEBASE }),
      ...createEvalTools(),
      ...extra,
    ]);
    await startOwnWorker(server.address, env, cleanups, { taskQueue, openai, registry });
    const client = await connectClient(server.address, env, cleanups);
    const agents = new AgentClient({ client, taskQueue });
    if (scripted && personalities) {
      say(
        `Eval "${suite.name}" on ${personalities.length === 1 ? 'personality' : 'personalities'} ${personalities.join(', ')}: ` +
          `${suite.tasks.length} tasks × ${repeat}, the good scripted agent (no endpoint), ${seedLabel(seed, repeat)}`,
      );
      const run = {
        agents,
        model: scripted,
        suite,
        personalities,
        seed,
        repeat,
        concurrency,
        outDir,
        json: values.json,
      };
      await scriptedEval(run, out, say);
      return 0;
    }
    say(
      `Eval "${suite.name}": ${suite.tasks.length} tasks × ${repeat}, model ${values.model ?? env.openaiModel}, ${judge ? `judge ${judgeModel}` : 'heuristic coherence (no --judge-model)'}, ${seedLabel(seed, repeat)}`,
    );
    const records = await runSuite({
      agents,
      tasks: suite.tasks,
      modelFor: () => values.model,
      repeat,
      concurrency,
      ...(judge ? { judge } : {}),
      onProgress: progress(say),
    });
    const scores = records.map(scoreRun);
    const summary = summarize(scores);
    const agreement = await labelAgreement(judge);
    mkdirSync(outDir, { recursive: true });
    const report = reportJson(suite.name, summary, records, scores, {
      seed,
      agreement,
      judge: judge ? { model: judgeModel, rubric: judge.rubric } : null,
    });
    writeFileSync(path.join(outDir, 'report.json'), `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(path.join(outDir, 'report.svg'), plotSvg(summary, suite.name));
    if (values.json) out(JSON.stringify(report));
    else {
      for (const line of formatTasks(scores)) out(line);
      out('');
      for (const line of formatSummary(summary)) out(line);
      const agree = (p: { successes: number; total: number }) => `${p.successes}/${p.total}`;
      out(
        `coherence judge agreement with the ${agreement.heuristic.total} labelled steps: heuristic ${agree(agreement.heuristic)}` +
          (agreement.judge ? `, ${judgeModel} ${agree(agreement.judge)}` : ''),
      );
    }
    say(`Report: ${path.join(outDir, 'report.json')} and report.svg`);
    return 0;
  } finally {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  }
}
