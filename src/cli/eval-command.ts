import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { hasModelEndpoint, readEnv } from '../client/env';
import { scoreRun, summarize } from '../eval/criteria';
import { createEvalTools } from '../eval/eval-tools';
import { labelAgreement, RUBRIC_FILE } from '../eval/labels';
import { formatSummary, formatTasks, plotSvg, reportJson } from '../eval/report';
import { runSuite } from '../eval/runner';
import { DEFAULT_SUITE, loadSuite } from '../eval/suite';
import { createOpenAIClient } from '../worker/index';
import { createBuiltinTools } from '../worker/tools/builtin';
import { ToolRegistry } from '../worker/tools/registry';
import { readFileSync } from 'node:fs';
import { loadToolsModule } from '../replay/tools-module';
import { parseCommandArgs, positiveInteger, UsageError } from './args';
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

/**
 * `durable-react-agent eval`: runs a task suite as durable runs against the configured OpenAI-compatible endpoint and
 * prints the five success criteria with counts and 95% intervals, per task and overall; writes a JSON report and a plot.
 */
export async function evalCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    suite: { type: 'string' },
    model: { type: 'string' },
    'judge-model': { type: 'string' },
    concurrency: { type: 'string' },
    repeat: { type: 'string' },
    out: { type: 'string' },
    root: { type: 'string' },
    'tools-module': { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length > 0) throw new UsageError(`eval takes no arguments, got "${positionals[0]}"`);
  const env = readEnv();
  if (!hasModelEndpoint(env))
    throw new UsageError('eval needs a model endpoint: set OPENAI_BASE_URL (Ollama, vLLM, …) and/or OPENAI_API_KEY');
  const suiteFile = values.suite ?? DEFAULT_SUITE;
  let suite;
  try {
    suite = loadSuite(suiteFile);
  } catch (error) {
    throw new UsageError(`invalid suite: ${(error as Error).message}`);
  }
  const concurrency = positiveInteger('concurrency', values.concurrency) ?? 4;
  const repeat = positiveInteger('repeat', values.repeat) ?? 1;
  const openai = createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL });
  const judgeModel = values['judge-model'];
  const judge = judgeModel ? { openai, model: judgeModel, rubric: readFileSync(RUBRIC_FILE, 'utf8') } : undefined;
  const outDir = path.resolve(values.out ?? path.join('.data', 'eval', new Date().toISOString().replace(/[:.]/g, '-')));

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanups: Cleanup[] = [];
  try {
    const server = await connectServer(env, say, cleanups);
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
    say(
      `Eval "${suite.name}": ${suite.tasks.length} tasks × ${repeat}, model ${values.model ?? env.openaiModel}, ${judge ? `judge ${judgeModel}` : 'heuristic coherence (no --judge-model)'}`,
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
