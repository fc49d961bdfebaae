import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { SimplePlugin } from '@temporalio/plugin';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { AgentRunError } from '../client/errors';
import { configOverrides, mergeConfig, type AgentConfig } from '../shared/agent-config';
import { InvalidConfigError } from '../client/errors';
import { AGENT_WORKFLOW_TYPE } from '../shared/messages';
import type { AgentWorkflowInput, ReActResult, ReActStep } from '../shared/types';
import { startScriptedModel } from '../testing/scripted-model';
import type { ScriptedTurn } from '../testing/scripted-turn';
import { createAgentWorker } from '../worker/create-worker';
import { createOpenAIClient } from '../worker/openai-client';
import type { ToolRegistry } from '../worker/tools/registry';
import { behaviourOf, type Behaviour } from './behaviour';
import { ReplayModel, type FallbackModel } from './replay-model';
import { createReplayRunTool, type RecordedToolResult } from './replay-tools';
import { startReviewer, type RecordedDecisionLike } from './reviewer';

/** What a replay needs of a recording: how the run started, and what the model, the tools and people answered. */
export interface ReplayScript {
  workflowId: string;
  workflowType: string;
  input: AgentWorkflowInput;
  /** Every model answer in order (thinking, summaries, critic), as the scripted server sends them. */
  turns: ScriptedTurn[];
  /** The fingerprint of each recorded model call's prompt, null where the history does not hold it. */
  prompts: Array<string | null>;
  toolResults: RecordedToolResult[];
  decisions: RecordedDecisionLike[];
  /** Call IDs whose confirmation or question timed out in the recording: left to time out again. */
  timedOut: string[];
  /** Model calls completed before someone cancelled the recorded run (null: nobody did). */
  cancelAfterModelCalls: number | null;
  /** Why this recording cannot be replayed (e.g. it delegates to subagents), or null. */
  unsupported: string | null;
  /** The recorded behaviour: what the new run is compared with when no accepted baseline replaces it. */
  behaviour: Behaviour;
}

/** Where and how replays run. */
export interface ReplayEnvironment {
  /** A client and a worker connection to a Temporal server the replays may use (replay-check starts its own). */
  client: Client;
  connection: NativeConnection;
  /** The tools as the current worker defines them (their execution is replaced by the recording). */
  registry: ToolRegistry;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Asked for the model calls whose prompt changed (see ReplayModel); without it recorded answers are served. */
  fallback?: FallbackModel;
  /** Config fields to change for the replay (e.g. a new system prompt to try). */
  config?: AgentConfig;
  /** How long one replay may take before it is reported as unfinished (default 120 s plus its time budget). */
  timeoutMs?: number;
}

/** The new behaviour, and what the replay noticed on the way. */
export interface ReplayOutcome {
  replayWorkflowId: string;
  behaviour: Behaviour;
  /** The answers the model calls got (what an accepted baseline serves again). */
  turns: ScriptedTurn[];
  notes: string[];
}

function endingOf(result: ReActResult | AgentRunError): Behaviour['ending'] {
  return result instanceof AgentRunError ? 'failed' : result.terminationReason;
}

/** The fields a replay changes, checked, to lay over the recording's config. */
function replayOverrides(config: AgentConfig): AgentConfig {
  const checked = configOverrides(config);
  if (!checked.ok) throw new InvalidConfigError(checked.message);
  return checked.overrides;
}

/** Runs the recording's query and config with the current workflow and worker code, on a worker of its own. */
export async function replayRun(script: ReplayScript, env: ReplayEnvironment): Promise<ReplayOutcome> {
  const overrides = env.config ? replayOverrides(env.config) : {};
  const replay = new ReplayModel(script.turns, script.prompts, env.fallback);
  const model = await startScriptedModel({ record: false, scriptFor: () => replay.respond });
  const tools = createReplayRunTool(script.toolResults);
  const taskQueue = `replay-check-${randomUUID()}`;
  const worker = await createAgentWorker({
    connection: env.connection,
    namespace: env.client.options.namespace,
    taskQueue,
    registry: env.registry,
    // Nothing runs ahead in a replay: every call goes to the recording's answers (the stub runTool below).
    runAhead: false,
    openai: createOpenAIClient({ baseURL: model.baseURL, apiKey: 'replay-check' }),
    ...(env.workflowBundle ? { workflowBundle: env.workflowBundle } : {}),
    // A second plugin's activities replace the first's: nothing runs, the recording answers.
    workerOptions: {
      plugins: [new SimplePlugin({ name: 'replay-check-tools', activities: { runTool: tools.runTool } })],
    },
  });
  const running = worker.run();
  const agents = new AgentClient({ client: env.client, taskQueue, searchAttributes: false });
  const replayWorkflowId = `replay-${script.workflowId}-${randomUUID().slice(0, 8)}`;
  const notes: string[] = [];
  try {
    const config = mergeConfig(script.input.config ?? {}, overrides);
    const input: AgentWorkflowInput = {
      query: script.input.query,
      config,
      ...(script.input.seed ? { seed: script.input.seed } : {}),
    };
    await env.client.workflow.start(AGENT_WORKFLOW_TYPE, { taskQueue, workflowId: replayWorkflowId, args: [input] });
    const reviewer = startReviewer(env.client, replayWorkflowId, script.decisions, new Set(script.timedOut));
    const cancelling = cancelWhenDue(script, replay, agents, replayWorkflowId);
    const budgetMs = (Number(config.limits?.timeoutSeconds) || 0) * 1000;
    const result = await within(
      agents
        .handle(replayWorkflowId)
        .result()
        .catch((error: unknown) => {
          if (error instanceof AgentRunError) return error;
          throw error;
        }),
      env.timeoutMs ?? 120_000 + budgetMs,
    );
    await reviewer.stop();
    await cancelling.stop();
    notes.push(...reviewer.unrecorded.map((what) => `no recorded ${what}`));
    notes.push(...tools.unrecorded.map((call) => `no recorded result for ${call}`));
    if (replay.live > 0) notes.push(`${replay.live} model call(s) answered by the fallback model`);
    if (result === 'timeout') {
      await env.client.workflow.getHandle(replayWorkflowId).terminate('replay-check gave up waiting');
      notes.push('the replay did not finish in time');
      const behaviour = behaviourOf([], null, 'unfinished', replay.prompts);
      return { replayWorkflowId, behaviour, turns: replay.served, notes };
    }
    const steps: ReActStep[] = result.trace?.steps ?? [];
    const finalAnswer = result instanceof AgentRunError ? null : result.finalAnswer;
    const behaviour = behaviourOf(steps, finalAnswer, endingOf(result), replay.prompts);
    return { replayWorkflowId, behaviour, turns: replay.served, notes };
  } finally {
    worker.shutdown();
    await running;
    await model.close();
  }
}

/** Cancels the replay where the recorded run was cancelled: once as many model calls have been answered. */
function cancelWhenDue(script: ReplayScript, replay: ReplayModel, agents: AgentClient, workflowId: string) {
  const due = script.cancelAfterModelCalls;
  let stopped = false;
  const loop = (async () => {
    if (due === null) return;
    while (!stopped && replay.prompts.length < due) await new Promise((resolve) => setTimeout(resolve, 50));
    if (stopped) return;
    // Let the answered call's effects (a tool starting, an approval asked) happen, as they had in the recording.
    for (let attempt = 0; attempt < 40 && !stopped; attempt++) {
      const status = await agents
        .handle(workflowId)
        .getStatus()
        .catch(() => null);
      if (status && status.state !== 'thinking') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!stopped)
      await agents
        .handle(workflowId)
        .cancel()
        .catch(() => undefined);
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
