import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ReActStep } from '../shared/types';
import { heuristicVerdict, judgeSteps, type JudgeOptions } from './coherence';
import { proportion, type Proportion } from './stats';

/** The hand-labelled steps shipped with the suite, for stating how far a judge agrees with people. */
export const LABELS_FILE = path.resolve(__dirname, '..', '..', 'evals', 'coherence-labels.json');
/** The judge's rubric. */
export const RUBRIC_FILE = path.resolve(__dirname, '..', '..', 'evals', 'coherence-rubric.md');

interface Label {
  thought: string;
  tool: string;
  args: Record<string, unknown>;
  coherent: boolean;
}

function toStep(label: Label, index: number): ReActStep {
  return {
    iteration: index + 1,
    thought: label.thought,
    action: { type: 'tool_call', tool: label.tool, args: label.args, callId: `c${index + 1}-1` },
    observation: '',
    timestamp: new Date(0).toISOString(),
    tokenUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

/** How often the heuristic, and the judge model when given, agree with the labels. */
export async function labelAgreement(judge?: JudgeOptions): Promise<{ heuristic: Proportion; judge?: Proportion }> {
  const labels = (JSON.parse(readFileSync(LABELS_FILE, 'utf8')) as { steps: Label[] }).steps;
  const steps = labels.map(toStep);
  const agree = (verdicts: boolean[]) =>
    proportion(verdicts.filter((coherent, index) => coherent === labels[index]!.coherent).length, labels.length);
  const heuristic = agree(steps.map((step) => heuristicVerdict(step).coherent));
  if (!judge) return { heuristic };
  const judged = await judgeSteps(judge, 'Labelled steps from several tasks', steps);
  return { heuristic, judge: agree(judged.map((verdict) => verdict.coherent)) };
}
