import { setCurrentDetails } from '@temporalio/workflow';
import { describeDecider } from '../../shared/identity';
import { describeCall } from '../../shared/observation';
import type { ReActStep } from '../../shared/types';
import { phaseOf } from './run-activity';
import { clipLine as line } from '../../shared/well-formed';
import { describeCost, engineActionsTotal, formatUsd } from '../../shared/cost';
import type { RunState } from './run-state';
import { engineActionsOf } from './cost-ledger';

/** Steps shown in the UI's current details; older ones are counted, not listed, so the text stays small. */
export const DETAIL_STEPS = 15;

/** "approve, always, by alice via inbox": what was decided and who decided it. */
function decisionText(decision: NonNullable<ReActStep['decision']>): string {
  const by = decision.by ? `, by ${describeDecider(decision.by)}` : '';
  return `${decision.kind}${decision.always ? ', always' : ''}${by}`;
}

function stepLines(step: ReActStep): string[] {
  const lines = [`**${step.iteration}. Thought:** ${line(step.thought || '(none)')}`];
  const action = step.action;
  if (action.type === 'tool_call')
    lines.push(
      `- Action: \`${line(describeCall(action.tool, action.args, 120))}\`${step.decision ? ` (${decisionText(step.decision)})` : ''}`,
    );
  if (action.type === 'delegate')
    lines.push(
      `- Delegated to **${action.agent}**: ${line(action.task)}${step.childWorkflowId ? ` (\`${step.childWorkflowId}\`)` : ''}`,
    );
  if (action.type === 'clarification')
    lines.push(
      `- Asked: ${line(action.question)}${step.answeredBy ? ` (answered by ${describeDecider(step.answeredBy)})` : ''}`,
    );
  if (action.type === 'final_answer')
    lines.push(`- **Final answer${step.forced ? ' (forced)' : ''}:** ${line(action.answer)}`);
  if (step.observation !== null) lines.push(`- Observation${step.isError ? ' ⚠' : ''}: ${line(step.observation)}`);
  if (step.critic) lines.push(`- Critic: ${step.critic.decision} (${step.critic.confidence})`);
  return lines;
}

/** The live scratchpad as markdown for the Temporal UI: status, what waits for a person, and the latest steps. */
export function renderDetails(state: RunState): string {
  const pending = state.approvals.snapshot();
  const status = state.outcome.stop
    ? `stopped: ${state.outcome.stop.reason} (${state.outcome.stop.detail})`
    : phaseOf(state.activity, state.approvals.snapshot());
  const sections = [
    `**Status:** ${status} · iteration ${state.counters.iterations}/${state.budget.limits.maxIterations} · ${state.counters.usage.totalTokens} tokens · run ${state.run}`,
    `**Cost:** ${describeCost({ ...state.cost.totals, engineActionsTotal: engineActionsTotal(engineActionsOf(state.cost)) })}${state.budget.limits.cost !== undefined ? ` of a ${formatUsd(state.budget.limits.cost)} budget` : ''}`,
  ];
  if (pending.approvals.length > 0 || pending.question || pending.budget) {
    const waiting = pending.approvals.map(
      (call) =>
        `- \`${call.callId}\` ${line(describeCall(call.tool, call.args, 120))}: \`durable-react-agent approve ${state.workflowId} ${call.callId}\` or signal \`decide\` \`{"callId":"${call.callId}","decision":"approve","identity":"<your name>"}\``,
    );
    if (pending.question)
      waiting.push(
        `- Question \`${pending.question.callId}\`: ${line(pending.question.question)} (signal \`answer\` \`{"answer":"…","identity":"<your name>"}\`)`,
      );
    if (pending.budget)
      waiting.push(
        `- Budget \`${pending.budget.requestId}\`: ${pending.budget.question} (\`durable-react-agent raise ${state.workflowId}\` or \`stop\`, or signal \`decideBudget\` \`{"requestId":"${pending.budget.requestId}","decision":"raise","identity":"<your name>"}\`)`,
      );
    sections.push(`### Waiting for a decision\n${waiting.join('\n')}`);
  }
  if (state.transcript.summary) sections.push(`### Conversation so far\n${line(state.transcript.summary)}`);
  const shown = state.transcript.steps.slice(-DETAIL_STEPS);
  const hidden = state.transcript.stepsBefore + state.transcript.steps.length - shown.length;
  const steps = shown.flatMap(stepLines);
  if (steps.length > 0)
    sections.push(
      `### Scratchpad${hidden > 0 ? ` (latest ${shown.length}; ${hidden} earlier)` : ''}\n${steps.join('\n')}`,
    );
  return sections.join('\n\n');
}

/** Updates the run's current details in the UI (no history event: the UI reads it through a query). */
export function refreshDetails(state: RunState): void {
  setCurrentDetails(renderDetails(state));
}
