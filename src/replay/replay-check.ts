import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { chainRunIds } from '../client/run-chain';
import { AGENT_WORKFLOW_TYPE } from '../shared/messages';
import type { ReActStep } from '../shared/types';
import { buildModelRequest } from '../worker/activities/llm';
import type { ToolRegistry } from '../worker/tools/registry';
import { baselinePath, readBaseline, writeBaseline } from './baseline';
import {
  approvalOf,
  behaviourOf,
  compareBehaviour,
  promptFingerprint,
  type Behaviour,
  type BehaviourChange,
} from './behaviour';
import {
  groupChains,
  loadHistoryFile,
  payloadDecoder,
  readRecording,
  type HistoryInput,
  type Recording,
} from './recording';
import { replayRun, type ReplayEnvironment, type ReplayScript } from './replay-run';
import { stubTools } from './stub-tools';

/** One recording to check: a chain's histories and where its accepted baseline lives. */
export interface RecordingSource {
  name: string;
  histories: HistoryInput[];
  baselineFile: string;
}

/** What replay-check found for one recording. */
export interface CheckReport {
  name: string;
  workflowId: string;
  /** `changed` makes the command exit 1; `accepted` means --accept wrote the new behaviour as the baseline. */
  status: 'unchanged' | 'changed' | 'accepted' | 'skipped';
  changes: BehaviourChange[];
  notes: string[];
  replayWorkflowId?: string;
}

/** Where baselines go for recordings read by workflow ID (files keep theirs beside them). */
export const DEFAULT_BASELINE_DIR = 'replay-baselines';

/**
 * The recordings named on the command line: history files (several files of one continue-as-new chain are one
 * recording) and workflow IDs, whose whole chain is read from the server `client` talks to.
 */
export async function loadSources(
  args: readonly string[],
  options: { client?: Client; baselineDir?: string },
): Promise<RecordingSource[]> {
  const files = args.filter((arg) => arg.endsWith('.json') && existsSync(arg));
  const sources: RecordingSource[] = [];
  const loaded = files.map((file) => ({ file, history: loadHistoryFile(file) }));
  for (const chain of groupChains(loaded.map(({ history }) => history))) {
    const file = loaded.find(({ history }) => history === chain[0])!.file;
    const name = path.basename(file, '.json');
    sources.push({
      name,
      histories: chain,
      baselineFile: baselinePath(options.baselineDir ?? path.dirname(file), name),
    });
  }
  for (const workflowId of args.filter((arg) => !files.includes(arg))) {
    const client = options.client;
    if (!client) throw new Error(`${workflowId}: reading a run by ID needs a Temporal server address`);
    const histories: HistoryInput[] = [];
    for (const runId of await chainRunIds(client, workflowId)) {
      histories.push({ workflowId, history: await client.workflow.getHandle(workflowId, runId).fetchHistory() });
    }
    sources.push({
      name: workflowId,
      histories,
      baselineFile: baselinePath(options.baselineDir ?? DEFAULT_BASELINE_DIR, workflowId),
    });
  }
  return sources;
}

function recordedSteps(recording: Recording): {
  steps: ReActStep[];
  finalAnswer: string | null;
  ending: Behaviour['ending'];
} {
  const { outcome } = recording;
  const earlier = recording.earlierSteps;
  if (outcome.status === 'completed')
    return {
      steps: [...earlier, ...outcome.result.trace.steps],
      finalAnswer: outcome.result.finalAnswer,
      ending: outcome.result.terminationReason,
    };
  if (outcome.status === 'failed')
    return { steps: [...earlier, ...(outcome.trace?.steps ?? [])], finalAnswer: null, ending: 'failed' };
  return { steps: earlier, finalAnswer: null, ending: 'unfinished' };
}

function unsupported(recording: Recording): string | null {
  if (recording.workflowType !== AGENT_WORKFLOW_TYPE)
    return `it ran the workflow type ${recording.workflowType}; replay-check runs the stock agent workflow`;
  if (recording.input.carried) return 'the first run of its continue-as-new chain is missing';
  if (recording.children.length > 0) return 'it delegates to subagents, which replay-check does not re-run yet';
  if (recording.outcome.status === 'running' || recording.outcome.status === 'continued')
    return 'it has not finished (or its last run is missing)';
  return null;
}

/** The replay's script: the recording's answers, and its prompts as the worker sends them, fingerprinted. */
export function scriptOf(recording: Recording, registry: ToolRegistry): ReplayScript {
  const recorded = recordedSteps(recording);
  const prompts = recording.modelCalls.map((call) => {
    if (call.kind !== 'callModel' || !call.prompt || !call.input) return null;
    const tools = call.input.tools.flatMap((name) => registry.get(name) ?? []);
    const request = buildModelRequest({ ...call.input, messages: call.prompt }, 'recorded', tools);
    return promptFingerprint(request.messages);
  });
  // Older recordings' steps do not say how a person settled a call; their decisions do.
  type Outcome = NonNullable<ReActStep['decision']>;
  const decided = new Map<string, Outcome>();
  for (const { message, payload } of recording.decisions)
    if (message === 'decide' && typeof payload.callId === 'string')
      decided.set(payload.callId, {
        kind: String(payload.decision) as Outcome['kind'],
        ...(payload.always === true ? { always: true as const } : {}),
      });
  const steps = recorded.steps.map((step) => {
    const callId = 'callId' in step.action ? step.action.callId : undefined;
    const decision = callId ? decided.get(callId) : undefined;
    return step.decision || !decision ? step : { ...step, decision };
  });
  // Under a time budget, how long the model took is part of the run: the answers come as late as they came.
  const timed = recording.input.config?.limits?.timeoutSeconds !== undefined;
  const timedOut = recorded.steps.flatMap((step) =>
    approvalOf(step) === 'timeout' && 'callId' in step.action && step.action.callId ? [step.action.callId] : [],
  );
  return {
    workflowId: recording.workflowId,
    workflowType: recording.workflowType,
    input: recording.input,
    turns: recording.modelCalls.map((call) =>
      timed && call.durationMs !== undefined ? { ...call.turn, delayMs: call.durationMs } : call.turn,
    ),
    prompts,
    toolResults: recording.toolCalls,
    decisions: recording.decisions,
    timedOut,
    cancelAfterModelCalls: recording.cancelRequested?.afterModelCalls ?? null,
    unsupported: unsupported(recording),
    behaviour: behaviourOf(steps, recorded.finalAnswer, recorded.ending, prompts),
  };
}

/** Replays each recording and compares; with `accept`, a changed behaviour becomes the recording's baseline. */
export async function checkRecordings(
  sources: readonly RecordingSource[],
  env: ReplayEnvironment,
  options: { accept?: boolean; onReport?: (report: CheckReport) => void } = {},
): Promise<CheckReport[]> {
  const decode = payloadDecoder(env.client.options.loadedDataConverter);
  const reports: CheckReport[] = [];
  for (const source of sources) {
    const recording = await readRecording(source.histories, decode);
    const registry = stubTools(env.registry, recording);
    const script = scriptOf(recording, registry.registry);
    const base = { name: source.name, workflowId: recording.workflowId };
    let report: CheckReport;
    if (script.unsupported) {
      report = { ...base, status: 'skipped', changes: [], notes: [script.unsupported] };
    } else {
      const baseline = readBaseline(source.baselineFile);
      // An accepted baseline's prompts are what the current code is expected to send: serve the answers for them.
      const expected = baseline?.behaviour ?? script.behaviour;
      const turns = baseline?.turns ?? script.turns;
      const replay = await replayRun(
        { ...script, turns, prompts: expected.prompts },
        { ...env, registry: registry.registry },
      );
      const changes = compareBehaviour(expected, replay.behaviour);
      const notes = [...registry.notes, ...replay.notes];
      if (changes.length > 0 && options.accept)
        writeBaseline(source.baselineFile, recording.workflowId, replay.behaviour, replay.turns);
      const status = changes.length === 0 ? 'unchanged' : options.accept ? 'accepted' : 'changed';
      report = { ...base, status, changes, notes, replayWorkflowId: replay.replayWorkflowId };
    }
    options.onReport?.(report);
    reports.push(report);
  }
  return reports;
}
