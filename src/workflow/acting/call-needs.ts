import { condition } from '@temporalio/workflow';
import type { ParsedToolCall } from '../../shared/protocol';
import type { CallAnswer, CallNeed, ElicitationRequest } from '../../shared/tool-protocol';
import { canonicalJson } from '../../shared/canonical';
import { summaryMessages, type SummarizeInput } from '../../shared/summaries';
import { modelActivities } from '../activity-proxies';
import { askUser } from '../people/human-loop';
import { recordHelperCall, type RunState } from '../record/run-state';
import { loopCallAllowance, withCap } from '../limits/token-budget';

/*
 * What a tool call asks its run while it runs (an MCP server's sampling or elicitation request), answered durably:
 * the call has stopped, the run gets the answer (its model, or a person), and the call is made again with it.
 */

/** Requests back to the run one call may make (each answered, then the call made again). */
export const MAX_CALL_NEEDS = 4;

/**
 * The run's answer to what a call asked it (see `CallNeed`): an MCP server's sampling request goes to the run's model
 * as a helper call of the run (recorded, in the cost ledger, within the token budget); an elicitation is the run's
 * question to a person, as pending, answered and audited as any question. A string says why there is no answer.
 */
export async function answerNeed(state: RunState, call: ParsedToolCall, need: CallNeed): Promise<CallAnswer | string> {
  if (need.kind === 'elicitation') return await askPerson(state, call, need.server, need.key, need.request);
  const input: SummarizeInput = {
    kind: 'sampling',
    query: state.query,
    request: need.request,
    ...(state.config.model !== undefined ? { model: state.config.model } : {}),
  };
  const allowed = loopCallAllowance(state, summaryMessages(input));
  if ('refused' in allowed) return `${need.server} asked the run's model to write, and the token budget leaves no room`;
  const cap = Math.min(need.request.maxTokens, allowed.maxTokens ?? need.request.maxTokens);
  const { summarize } = modelActivities(state.terms.modelCallPolicy);
  const output = await summarize.executeWithOptions({ summary: `sample · ${need.server} for ${call.tool}` }, [
    withCap(input, cap),
  ]);
  recordHelperCall(state, 'sample', output.usage);
  return { kind: 'sampling', text: output.summary, model: state.config.model ?? 'default' };
}

/**
 * A server's form, asked as the run's question: the person answers with the JSON the form's schema describes, or
 * `decline` or `cancel`. No answer by the approvals deadline is a decline. The server checks the content itself.
 */
async function askPerson(
  state: RunState,
  call: ParsedToolCall,
  server: string,
  key: string,
  request: ElicitationRequest,
): Promise<CallAnswer | string> {
  const question =
    `${server} (a call of ${call.tool}) asks: ${request.message}\n` +
    `Answer with JSON matching ${canonicalJson(request.requestedSchema)}, or "decline" or "cancel".`;
  // The run holds one question at a time: a form asked while another waits (parallel calls) is asked after it.
  await condition(() => state.approvals.question === null);
  const { text, answered } = await askUser(state, `${call.callId}.${key.slice(0, 8)}`, question);
  const reply = text.trim();
  if (!answered || /^decline$/i.test(reply)) return { kind: 'elicitation', action: 'decline' };
  if (/^cancel$/i.test(reply)) return { kind: 'elicitation', action: 'cancel' };
  try {
    const content: unknown = JSON.parse(reply);
    if (content !== null && typeof content === 'object' && !Array.isArray(content))
      return { kind: 'elicitation', action: 'accept', content: content as Record<string, unknown> };
  } catch {
    // said below
  }
  return `the answer to ${server}'s form was neither a JSON object nor "decline" or "cancel"`;
}
