/**
 * The LangGraph.js contender: the prebuilt ReAct agent (`createReactAgent`) with the SQLite checkpointer on a file,
 * LangGraph's own durable set-up, calling the same scripted model through `@langchain/openai` (the `openai` client
 * underneath). Each run gets its own thread; its agent is built before the clock starts, as a service would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tool } from '@langchain/core/tools';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { childMain, now } from '../child';
import { loopModels, measureLoop, type LoopJob, type LoopResult } from '../measure';
import type { CheckpointRow, LangGraphDurability, LangGraphJob } from '../langgraph-protocol';
import { BENCH_SYSTEM_PROMPT, BENCH_TASK, benchModel, NOOP_DESCRIPTION } from '../scenario';

const noop = tool(() => 'ok', {
  name: 'noop',
  description: NOOP_DESCRIPTION,
  schema: z.object({ step: z.number().int().optional() }),
});

type Agent = ReturnType<typeof createReactAgent>;

function buildAgent(baseURL: string, model: string, saver: SqliteSaver): Agent {
  const llm = new ChatOpenAI({ model, apiKey: 'not-needed', maxRetries: 0, configuration: { baseURL } });
  return createReactAgent({ llm, tools: [noop], checkpointSaver: saver, prompt: BENCH_SYSTEM_PROMPT });
}

async function runAgent(agent: Agent, model: string, durability: LangGraphDurability = 'async'): Promise<number> {
  const steps = Number(model.split('.')[2]);
  // Each step is two super-steps (model, tools); the default limit of 25 would stop runs past 12 steps.
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: BENCH_TASK }] },
    { configurable: { thread_id: model }, recursionLimit: 2 * steps + 10 },
  );
  const last = state.messages.at(-1);
  if (last?.content !== `Finished ${steps} steps.`) throw new Error(`${model} did not finish its script`);
  return steps;
}

/** P3: the checkpoint and pending-write bytes one thread leaves in SQLite. */
function threadBytes(saver: SqliteSaver, threadId: string): { checkpoints: number; bytes: number } {
  const checkpoints = saver.db
    .prepare(
      'SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) AS bytes FROM checkpoints WHERE thread_id = ?',
    )
    .get(threadId) as { n: number; bytes: number };
  const writes = saver.db
    .prepare('SELECT COALESCE(SUM(LENGTH(value)), 0) AS bytes FROM writes WHERE thread_id = ?')
    .get(threadId) as { bytes: number };
  return { checkpoints: checkpoints.n, bytes: checkpoints.bytes + writes.bytes };
}

childMain<LangGraphJob, LoopResult | CheckpointRow[]>(async (job) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dra-bench-langgraph-'));
  const saver = SqliteSaver.fromConnString(path.join(dir, 'checkpoints.db'));
  try {
    if (job.kind === 'loop') {
      const agents = new Map(loopModels(job).map((model) => [model, buildAgent(job.baseURL, model, saver)]));
      return await measureLoop(
        job,
        async (model) => void (await runAgent(agents.get(model) as Agent, model, job.durability)),
      );
    }
    const rows: CheckpointRow[] = [];
    for (const steps of job.sizes) {
      const model = benchModel('noop', steps, 'p3-langgraph');
      const agent = buildAgent(job.baseURL, model, saver);
      const started = now();
      await runAgent(agent, model);
      const seconds = (now() - started) / 1000;
      const { checkpoints, bytes } = threadBytes(saver, model);
      rows.push({ steps, checkpoints, bytes, bytesPerStep: bytes / steps, seconds });
      console.error(`checkpoints: ${steps} steps measured`);
    }
    return rows;
  } finally {
    saver.db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
