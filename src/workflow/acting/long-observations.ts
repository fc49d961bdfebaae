import type { ParsedToolCall } from '../../shared/protocol';
import { describeCall } from '../../shared/observation';
import type { ToolObservation } from '../../shared/tool-protocol';
import { modelActivities } from '../activity-proxies';
import { recordHelperCall, type RunState } from '../record/run-state';
import { loopCallAllowance, withCap } from '../limits/token-budget';
import { summaryMessages, type SummarizeInput } from '../../shared/summaries';

/*
 * Long tool results, summarised by the model when the run asks for it (`summarizeObservationsOver`): the step keeps
 * the summary, and the tool is asked for its whole result so the summary is of all of it.
 */

/** Asks a tool for its whole result when the run summarises long ones, so the summary is of all of it. */
export function fullTextOver(state: RunState): { fullTextOver?: number } {
  const over = state.config.history.summarizeObservationsOver;
  return over !== undefined ? { fullTextOver: over } : {};
}

/**
 * A successful observation over `summarizeObservationsOver` estimated tokens is replaced by the model's summary of it:
 * of the whole result when the tool returned it (`fullText`), which no step keeps.
 */
export async function condenseObservation(
  state: RunState,
  call: ParsedToolCall,
  { fullText, ...observation }: ToolObservation,
): Promise<ToolObservation & { summarizedFromTokens?: number }> {
  const over = state.config.history.summarizeObservationsOver;
  const rawTokens = observation.rawTokens ?? 0;
  if (over === undefined || observation.isError || rawTokens <= over) return observation;
  const input: SummarizeInput = {
    kind: 'observation',
    query: state.query,
    call: describeCall(call.tool, call.args),
    text: fullText ?? observation.text,
    model: state.config.model,
  };
  // Over the token budget the (already truncated) observation stays as it is.
  const allowed = loopCallAllowance(state, summaryMessages(input));
  if ('refused' in allowed) return observation;
  const { summarize } = modelActivities(state.terms.modelCallPolicy);
  const output = await summarize.executeWithOptions({ summary: `summarise · ${call.tool} result` }, [
    withCap(input, allowed.maxTokens),
  ]);
  recordHelperCall(state, 'summarize', output.usage);
  return { ...observation, text: output.summary, truncated: false, summarizedFromTokens: rawTokens };
}
