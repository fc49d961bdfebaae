import { describeDecider } from '../shared/identity';
import type { ReActStep } from '../shared/types';
import { clipLine, visible } from '../common/terminal-text';

/** Renders one step, as the `trace` command prints a run's steps. */
export function formatStep(step: ReActStep): string {
  return visible(describeStep(step));
}

function describeStep(step: ReActStep): string {
  // A fork's steps taken from its parent were not run again: say so, so a reader does not look for their effects.
  const label = `[step ${step.iteration}]${step.seeded ? ' (from parent)' : ''}`;
  if (step.action.type === 'final_answer' && step.action.answer === step.thought) {
    // A native final answer's text is both thought and answer: print it once.
    return `${label} Final answer${step.forced ? ' (forced)' : ''}: ${clipLine(step.action.answer)}`;
  }
  const lines = [`${label} Thought: ${clipLine(step.thought || '(no thought given)')}`];
  switch (step.action.type) {
    case 'tool_call':
      lines.push(`           Action: ${step.action.tool} ${clipLine(JSON.stringify(step.action.args) ?? '')}`);
      lines.push(
        `           Observation${step.isError ? ' (error)' : ''}${step.edited ? ' (edited)' : ''}: ` +
          clipLine(step.observation ?? ''),
      );
      if (step.effect?.mayHaveHappened) lines.push(`           Effect: ${describeEffect(step.effect)}`);
      break;
    case 'final_answer':
      lines.push(`           Final answer${step.forced ? ' (forced)' : ''}: ${clipLine(step.action.answer)}`);
      break;
    case 'clarification':
      lines.push(`           Question: ${clipLine(step.action.question)}`);
      break;
    case 'delegate':
      lines.push(`           Delegate: ${step.action.agent}: ${clipLine(step.action.task)}`);
      break;
  }
  return lines.join('\n');
}

/** Why a call's effect was in doubt and how it was settled, in one line. */
function describeEffect(effect: NonNullable<ReActStep['effect']>): string {
  const parts = [`may have happened unseen (${effect.attempts} attempt${effect.attempts === 1 ? '' : 's'})`];
  if (effect.reconcile)
    parts.push(`reconcile: ${effect.reconcile}${effect.detail ? ` (${clipLine(effect.detail)})` : ''}`);
  else parts.push('not reconciled: the tool has no reconcile');
  if (effect.decision) parts.push(`decided: ${effect.decision.kind} by ${describeDecider(effect.decision.by)}`);
  return parts.join('; ');
}
