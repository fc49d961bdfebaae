import {
  criticActions,
  criticMessages,
  criticNote,
  criticSteer,
  type CriticVerdict,
  type CritiqueInput,
  type CritiqueOutput,
} from '../../shared/critic';
import type { ReActStep } from '../../shared/types';
import { contextLengthFailure, overflowOf } from './context-window';
import { eventText } from '../../shared/events';
import { loopCallAllowance, withCap } from '../limits/token-budget';
import { modelActivities } from '../activity-proxies';
import { renderScratchpad } from '../../shared/protocol';
import { recordError, recordHelperCall, stopRun, type RunState } from '../record/run-state';
import { addFeedback, addNote, setCriticAction } from '../record/prompt-state';
import { promptSteps } from '../../shared/step-archive';

/** How many earlier steps with an observation the critic reads besides the latest iteration's. */
export const CRITIC_FINDINGS_STEPS = 8;
/** At most this many characters of those earlier findings (the oldest are cut first). */
export const CRITIC_FINDINGS_CHARS = 12_000;

/** Earlier steps' calls and observations, newest kept, bounded by {@link CRITIC_FINDINGS_CHARS}. */
function earlierFindings(state: RunState): string {
  const earlier = state.transcript.steps
    .filter((step) => step.iteration < state.counters.iterations && step.observation !== null)
    .slice(-CRITIC_FINDINGS_STEPS);
  if (earlier.length === 0) return '';
  const text = renderScratchpad(promptSteps(earlier), state.config);
  return text.length <= CRITIC_FINDINGS_CHARS ? text : `[earlier findings cut]\n${text.slice(-CRITIC_FINDINGS_CHARS)}`;
}

/**
 * Critic mode: after an iteration's observations, the critic classifies them; the verdict is recorded on the
 * iteration's last step and shown to the next thought. INSUFFICIENT_DATA ends the run as a failure that says what is
 * missing (the forced final answer then explains it). An unreadable verdict is recorded and skipped.
 */
export async function critiqueIteration(state: RunState): Promise<void> {
  const latest = state.transcript.steps.filter(
    (step) => step.iteration === state.counters.iterations && step.observation !== null,
  );
  const last = latest[latest.length - 1];
  if (!state.config.critic || state.outcome.stop || !last) return;
  const input: CritiqueInput = {
    query: state.query,
    latest: renderScratchpad(promptSteps(latest), state.config),
    summary: state.transcript.summary,
    findings: earlierFindings(state),
    model: state.config.model,
  };
  // Over the token budget the critic is skipped: it only advises, and the loop's own check ends the run. The same
  // holds for the context window, before the call and when the provider refuses it.
  const allowed = loopCallAllowance(state, criticMessages(input));
  if ('refused' in allowed) return;
  if (overflowOf(state, criticMessages(input)) > 0) return;
  let output: CritiqueOutput;
  try {
    const { critique } = modelActivities(state.terms.modelCallPolicy);
    output = await critique.executeWithOptions({ summary: 'critic' }, [withCap(input, allowed.maxTokens)]);
  } catch (error) {
    const refusal = contextLengthFailure(error);
    if (!refusal) throw error;
    recordError(state, 'model_error', `the critic was skipped: ${refusal.message}`);
    return;
  }
  recordHelperCall(state, 'critic', output.usage);
  if ('malformed' in output) {
    recordError(state, 'malformed_output', output.malformed);
    return;
  }
  const { verdict } = output;
  last.critic = verdict;
  const { decision, reasoning, confidence } = verdict;
  state.events.emit({ type: 'critic_verdict', decision, reasoning: eventText(reasoning), confidence });
  actOnVerdict(state, verdict, last);
}

/** Names under which a tool takes its query, most likely first: the argument a refined query replaces. */
const QUERY_ARGS = ['query', 'q', 'search', 'question', 'prompt', 'text', 'input'];

/**
 * The latest call's arguments with the refined query in place of its query: the argument named like a query, else
 * its only string argument. Null when neither exists (the verdict then stays advice).
 */
export function refineArgs(args: unknown, refinedQuery: string): Record<string, unknown> | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  const strings = Object.keys(record).filter((key) => typeof record[key] === 'string');
  const key = QUERY_ARGS.find((name) => strings.includes(name)) ?? (strings.length === 1 ? strings[0] : undefined);
  return key === undefined ? null : { ...record, [key]: refinedQuery };
}

/** Each verdict acts as the run's `critic` setting says, or is shown to the next thought as a note. */
function actOnVerdict(state: RunState, verdict: CriticVerdict, last: ReActStep): void {
  const actions = criticActions(state.config.critic);
  if (!actions) return;
  switch (verdict.decision) {
    case 'CONTINUE':
      addNote(state.prompt, criticNote(verdict));
      if (actions.onContinue === 'answer') setCriticAction(state.prompt, { type: 'answer' });
      return;
    case 'RETRY_WITH_REFINEMENT': {
      const { refinedQuery } = verdict;
      const args =
        actions.onRetry === 'reissue' && refinedQuery !== undefined && last.action.type === 'tool_call'
          ? refineArgs(last.action.args, refinedQuery)
          : null;
      if (args && refinedQuery !== undefined && last.action.type === 'tool_call') {
        setCriticAction(state.prompt, { type: 'reissue', tool: last.action.tool, args, refinedQuery });
      } else addNote(state.prompt, criticNote(verdict));
      return;
    }
    case 'CALL_DIFFERENT_TOOL':
      if (actions.onDifferentTool === 'steer') addFeedback(state.prompt, criticSteer(verdict));
      else addNote(state.prompt, criticNote(verdict));
      return;
    case 'INSUFFICIENT_DATA':
      addNote(state.prompt, criticNote(verdict));
      if (actions.onInsufficientData === 'stop') {
        stopRun(state, 'failure', `the critic found the data insufficient: ${verdict.reasoning}`);
      }
      return;
  }
}
