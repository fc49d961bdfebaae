import { condition, sleep } from '@temporalio/workflow';
import type { ParsedToolCall } from '../../shared/protocol';
import type {
  CallAnswer,
  CallNeed,
  ElicitationRequest,
  McpTaskState,
  SamplingRequest,
} from '../../shared/tool-protocol';
import { canonicalJson } from '../../shared/canonical';
import { eventText } from '../../shared/events';
import { summaryMessages, type SummarizeInput } from '../../shared/summaries';
import { modelActivities } from '../activity-proxies';
import { askUser } from '../people/human-loop';
import { recordHelperCall, type RunState } from '../record/run-state';
import { loopCallAllowance, withCap } from '../limits/token-budget';

/*
 * What a tool call asks its run while it runs (an MCP server's sampling or elicitation request, or a task it runs
 * on), answered durably: the call has stopped, the run gets the answer (its model, a person, or a workflow timer),
 * and the call is made again with it.
 */

/** Requests back to the run one call may make (each answered, then the call made again); a task's polls aside. */
export const MAX_CALL_NEEDS = 4;

/** Bounds of the wait between two looks at an MCP task, whatever its server suggests. */
export const TASK_POLL_MIN_MS = 1_000;
export const TASK_POLL_MAX_MS = 60_000;
/**
 * Looks at a task that says nothing new before the wait doubles: a server suggesting 1 s for an hours-long task would
 * otherwise write a timer and an activity into the run's history every second.
 */
export const TASK_POLLS_BEFORE_BACKOFF = 5;

/** The wait before the next look at a task that has reported the same state `unchanged` times in a row. */
export function taskWaitMs(task: McpTaskState, unchanged: number): number {
  const base = Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MIN_MS, task.pollMs));
  return Math.min(TASK_POLL_MAX_MS, base * 2 ** Math.floor(unchanged / TASK_POLLS_BEFORE_BACKOFF));
}

/**
 * The run's answer to what a call asked it (see `CallNeed`): an MCP server's sampling request goes to the run's model
 * as a helper call of the run (recorded, in the cost ledger, within the token budget); an elicitation is the run's
 * question to a person, as pending, answered and audited as any question; a task is waited on. A string says why
 * there is no answer. `looks`: for a task, how many looks in a row before this one found it the same.
 */
export async function answerNeed(
  state: RunState,
  call: ParsedToolCall,
  need: CallNeed,
  looks = 0,
): Promise<CallAnswer | string> {
  if (need.kind === 'elicitation') return await askPerson(state, call, need.server, need.key, need.request);
  if (need.kind === 'task') return await waitOnTask(state, call, need.task, looks);
  if (need.ask) {
    const refused = await askToSample(state, call, need.server, need.key, need.request);
    if (refused !== null) return refused;
  }
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
 * `decline` or `cancel` (for a link to open, URL mode: `accept` once opened). No answer by the approvals deadline is a decline. The server checks the content itself.
 * The tool's approvers (`approvals.approvers`) are the ones who may fill in its server's forms; anyone may decline.
 */
async function askPerson(
  state: RunState,
  call: ParsedToolCall,
  server: string,
  key: string,
  request: ElicitationRequest,
): Promise<CallAnswer | string> {
  const { message, url, requestedSchema: schema } = request;
  const question =
    url !== undefined
      ? `${server} (a call of ${call.tool}) asks you to open ${url}: ${message}\n` +
        'Answer "accept" once you have, or "decline" or "cancel".'
      : `${server} (a call of ${call.tool}) asks: ${message}\n` +
        `Answer with JSON matching ${canonicalJson(schema ?? {})}, or "decline" or "cancel".`;
  // The run holds one question at a time: a form asked while another waits (parallel calls) is asked after it.
  await condition(() => state.approvals.question === null);
  const approvers = state.config.approvals.approvers[call.tool];
  const { text, answered } = await askUser(state, `${call.callId}.${key.slice(0, 8)}`, question, {
    form: { server, tool: call.tool, message, ...(url !== undefined ? { url } : { schema: schema ?? {} }) },
    ...(approvers ? { approvers } : {}),
  });
  const reply = text.trim();
  if (!answered || /^decline$/i.test(reply)) return { kind: 'elicitation', action: 'decline' };
  if (/^cancel$/i.test(reply)) return { kind: 'elicitation', action: 'cancel' };
  if (url !== undefined) {
    if (/^accept$/i.test(reply)) return { kind: 'elicitation', action: 'accept' };
    return `the answer to ${server}'s link was neither "accept" nor "decline" or "cancel"`;
  }
  try {
    const content: unknown = JSON.parse(reply);
    if (content !== null && typeof content === 'object' && !Array.isArray(content))
      return { kind: 'elicitation', action: 'accept', content: content as Record<string, unknown> };
  } catch {
    // said below
  }
  return `the answer to ${server}'s form was neither a JSON object nor "decline" or "cancel"`;
}

/**
 * A sampling request a person lets through first (`sampling: 'ask'`): the question shows what the server asks the
 * model. Null when accepted; else why the call ends (declined, or no answer by the approvals deadline).
 */
async function askToSample(
  state: RunState,
  call: ParsedToolCall,
  server: string,
  key: string,
  request: SamplingRequest,
): Promise<string | null> {
  const asked = [
    ...(request.systemPrompt ? [`system: ${request.systemPrompt}`] : []),
    ...request.messages.map((message) => `${message.role}: ${message.text}`),
  ];
  const question =
    `${server} (a call of ${call.tool}) asks the run's model to write (at most ${request.maxTokens} tokens), from:\n` +
    `${asked.join('\n')}\nAnswer "accept" to let it, or "decline".`;
  await condition(() => state.approvals.question === null);
  const approvers = state.config.approvals.approvers[call.tool];
  const { text, answered } = await askUser(
    state,
    `${call.callId}.${key.slice(0, 8)}`,
    question,
    approvers ? { approvers } : {},
  );
  if (answered && /^\s*accept\s*$/i.test(text)) return null;
  return `${server}'s request for the run's model to write was ${answered ? 'declined' : 'not answered in time'}`;
}

/**
 * A task the call's server runs on: a `tool_progress` event when it says something new (`looks` 0: the first look at
 * this state), then a workflow timer (the worker holds nothing meanwhile, and a worker started since looks next),
 * then the call looks at it again.
 */
async function waitOnTask(
  state: RunState,
  call: ParsedToolCall,
  task: McpTaskState,
  looks: number,
): Promise<CallAnswer> {
  if (looks === 0) {
    state.events.emit({
      type: 'tool_progress',
      callId: call.callId,
      tool: call.tool,
      status: task.status,
      ...(task.message !== undefined ? { message: eventText(task.message) } : {}),
    });
  }
  await sleep(taskWaitMs(task, looks));
  return { kind: 'task', id: task.id, ...(task.session !== undefined ? { session: task.session } : {}) };
}
