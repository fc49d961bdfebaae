import type { ReActStep } from '../shared/types';

const MAX_LINE = 300;

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_LINE ? `${oneLine.slice(0, MAX_LINE)}…` : oneLine;
}

/** Renders one step for the live trace on stderr. */
export function formatStep(step: ReActStep): string {
  const label = `[step ${step.iteration}]`;
  if (step.action.type === 'final_answer' && step.action.answer === step.thought) {
    // A native final answer's text is both thought and answer: print it once.
    return `${label} Final answer${step.forced ? ' (forced)' : ''}: ${clip(step.action.answer)}`;
  }
  const lines = [`${label} Thought: ${clip(step.thought || '(none)')}`];
  switch (step.action.type) {
    case 'tool_call':
      lines.push(`           Action: ${step.action.tool} ${clip(JSON.stringify(step.action.args) ?? '')}`);
      lines.push(`           Observation${step.isError ? ' (error)' : ''}: ${clip(step.observation ?? '')}`);
      break;
    case 'final_answer':
      lines.push(`           Final answer${step.forced ? ' (forced)' : ''}: ${clip(step.action.answer)}`);
      break;
    case 'clarification':
      lines.push(`           Question: ${clip(step.action.question)}`);
      break;
    case 'delegate':
      lines.push(`           Delegate: ${step.action.agent}: ${clip(step.action.task)}`);
      break;
  }
  return lines.join('\n');
}

/** Polls a run's trace and prints steps as they land; `stop()` prints what is left and ends the polling. */
export function followTrace(
  readSteps: () => Promise<ReActStep[]>,
  write: (line: string) => void,
  intervalMs = 250,
): { stop(finalSteps: ReActStep[]): Promise<void> } {
  let printed = 0;
  let stopped = false;
  let reading: Promise<unknown> = Promise.resolve();
  const printNew = (steps: ReActStep[]) => {
    for (const step of steps.slice(printed)) write(formatStep(step));
    printed = Math.max(printed, steps.length);
  };
  const poll = async () => {
    while (!stopped) {
      // A query can fail while the worker is starting; the next poll tries again.
      const read = readSteps().catch(() => []);
      reading = read;
      printNew(await read);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  void poll();
  return {
    // Resolves once no query is in flight, so the caller may close the connection (a query retried on a closed
    // connection throws from a timer, which would crash the process).
    async stop(finalSteps) {
      stopped = true;
      await reading;
      printNew(finalSteps);
    },
  };
}
