import { criticMessages, criticNote, type CritiqueInput, type CritiqueOutput } from '../shared/critic';
import { contextLengthFailure, overflowOf } from './context-window';
import { eventText } from '../shared/events';
import { loopCallAllowance, withCap } from './token-budget';
import { modelActivities } from './activity-proxies';
import { renderScratchpad } from '../shared/protocol';
import { recordError, recordUsage, stopRun, type RunState } from './run-state';
import { addNote } from './prompt-state';
import { promptSteps } from '../shared/step-archive';

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
    ...(state.rules.criticSeesFindings ? { findings: earlierFindings(state) } : {}),
    model: state.config.model,
  };
  // Over the token budget the critic is skipped: it only advises, and the loop's own check ends the run. From rule
  // set 5 the same holds for the context window, before the call and when the provider refuses it.
  const allowed = loopCallAllowance(state, criticMessages(input));
  if ('refused' in allowed) return;
  if (state.rules.fitsContextWindow && overflowOf(state, criticMessages(input)) > 0) return;
  let output: CritiqueOutput;
  try {
    const { critique } = modelActivities(state.config.modelCallPolicy);
    output = await critique.executeWithOptions({ summary: 'critic' }, [withCap(input, allowed.maxTokens)]);
  } catch (error) {
    const refusal = state.rules.fitsContextWindow ? contextLengthFailure(error) : undefined;
    if (!refusal) throw error;
    recordError(state, 'model_error', `the critic was skipped: ${refusal.message}`);
    return;
  }
  recordUsage(state, output.usage);
  if ('malformed' in output) {
    recordError(state, 'malformed_output', output.malformed);
    return;
  }
  const { verdict } = output;
  last.critic = verdict;
  const { decision, reasoning, confidence } = verdict;
  state.events.emit({ type: 'critic_verdict', decision, reasoning: eventText(reasoning), confidence });
  addNote(state.prompt, criticNote(verdict));
  if (verdict.decision === 'INSUFFICIENT_DATA') {
    stopRun(state, 'failure', `the critic found the data insufficient: ${verdict.reasoning}`);
  }
}
