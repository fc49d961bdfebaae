import type OpenAI from 'openai';
import type { ReActStep } from '../shared/types';

/** Whether one step's thought leads to its action, and who said so. */
export interface StepVerdict {
  iteration: number;
  coherent: boolean;
  reason: string;
  by: 'judge' | 'heuristic';
}

const words = (text: string): Set<string> =>
  new Set(
    (text.toLowerCase().match(/[a-z0-9][a-z0-9_.+\-*/]{2,}/g) ?? []).flatMap((word) => [word, ...word.split('_')]),
  );

function argValues(args: unknown): string[] {
  if (args === null || args === undefined) return [];
  if (typeof args === 'object') return Object.values(args as Record<string, unknown>).flatMap(argValues);
  return typeof args === 'string' || typeof args === 'number' || typeof args === 'boolean'
    ? [`${args}`.toLowerCase()]
    : [];
}

/**
 * The heuristic judge, used when no judge model is configured: a thought is coherent with a tool call when it names
 * the tool (or a word of its name) or one of the arguments' values, and with a final answer when it is the answer
 * or shares a word with it. Cheap and strict about thoughts that ignore what the step does; blind to wrong reasoning.
 */
export function heuristicVerdict(step: ReActStep): StepVerdict {
  const thought = step.thought.toLowerCase();
  const verdict = (coherent: boolean, reason: string): StepVerdict => ({
    iteration: step.iteration,
    coherent,
    reason,
    by: 'heuristic',
  });
  if (thought.trim() === '') return verdict(step.action.type === 'final_answer', 'no thought');
  const { action } = step;
  if (action.type === 'tool_call') {
    // "capital_lookup" is named by "capital" or "lookup" as well as by itself.
    const toolWords = [action.tool, ...action.tool.split('_').filter((word) => word.length >= 4)];
    const value = argValues(action.args).find((text) => text.length >= 2 && thought.includes(text));
    if (toolWords.some((word) => thought.includes(word))) return verdict(true, `the thought names ${action.tool}`);
    if (value) return verdict(true, `the thought mentions the argument "${value}"`);
    return verdict(false, `the thought names neither ${action.tool} nor its arguments`);
  }
  if (action.type === 'final_answer') {
    const answer = words(action.answer);
    const shared = [...words(thought)].some((word) => answer.has(word));
    return verdict(
      shared || thought === action.answer.toLowerCase(),
      shared ? 'the thought leads to the answer' : 'the thought and the answer share nothing',
    );
  }
  return verdict(true, 'a question or delegation with a thought');
}

/** The rubric the judge model applies (shipped as evals/coherence-rubric.md; kept in the report with its verdicts). */
export interface JudgeOptions {
  openai: OpenAI;
  model: string;
  rubric: string;
}

/**
 * Asks the judge model about every step of one run at once; a reply it cannot read falls back to the heuristic for
 * that run, and says so in the verdicts' reasons.
 */
export async function judgeSteps(
  judge: JudgeOptions,
  query: string,
  steps: readonly ReActStep[],
): Promise<StepVerdict[]> {
  const listed = steps
    .map((step) => {
      const action =
        step.action.type === 'tool_call'
          ? `${step.action.tool}(${JSON.stringify(step.action.args)})`
          : `${step.action.type}: ${JSON.stringify(step.action)}`;
      return `Step ${step.iteration}\nThought: ${step.thought}\nAction: ${action}\nObservation: ${(step.observation ?? '').slice(0, 400)}`;
    })
    .join('\n\n');
  try {
    const completion = await judge.openai.chat.completions.create({
      model: judge.model,
      temperature: 0,
      messages: [
        { role: 'system', content: judge.rubric },
        {
          role: 'user',
          content: `Task: ${query}\n\n${listed}\n\nReply with JSON only: {"steps":[{"iteration":1,"coherent":true,"reason":"..."}]}`,
        },
      ],
    });
    const text = completion.choices[0]?.message.content ?? '';
    const parsed = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as {
      steps?: Array<{ iteration?: unknown; coherent?: unknown; reason?: unknown }>;
    };
    return steps.map((step, index) => {
      const entry = parsed.steps?.find((candidate) => candidate.iteration === step.iteration) ?? parsed.steps?.[index];
      if (typeof entry?.coherent !== 'boolean')
        return { ...heuristicVerdict(step), reason: 'the judge gave no verdict: heuristic used' };
      return {
        iteration: step.iteration,
        coherent: entry.coherent,
        reason: typeof entry.reason === 'string' ? entry.reason : '',
        by: 'judge' as const,
      };
    });
  } catch (error) {
    return steps.map((step) => ({
      ...heuristicVerdict(step),
      reason: `the judge failed (${(error as Error).message}): heuristic used`,
    }));
  }
}
