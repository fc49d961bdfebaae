import { CancellationScope, condition, sleep } from '@temporalio/workflow';
import { errorObservation } from '../../shared/observation';
import type { ParsedToolCall } from '../../shared/protocol';
import type { CallAnswer, CallNeed, McpTaskState, ToolObservation } from '../../shared/tool-protocol';
import type { QuestionForm } from '../../shared/approvals';
import { canonicalJson } from '../../shared/canonical';
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

/**
 * Looks at one task, at most: each is a timer and an activity in the run's history, which has room for some tens of
 * thousands of events. With the waits growing to a minute, about a day and a half of looking; then the run stops
 * waiting, cancels the task and tells the model.
 */
export const MAX_TASK_LOOKS = 2_000;
/**
 * Looks after which the shortest wait doubles, whatever the task says: a task that says something new at every look
 * (a row count) would otherwise be looked at every second.
 */
export const TASK_LOOKS_PER_DOUBLING = 30;

/**
 * The wait before the next look at a task that has reported the same state `unchanged` times in a row, after `looks`
 * looks in all.
 */
export function taskWaitMs(task: McpTaskState, unchanged: number, looks = 0): number {
  const base = Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MIN_MS, task.pollMs));
  const quiet = base * 2 ** Math.floor(unchanged / TASK_POLLS_BEFORE_BACKOFF);
  const floor = TASK_POLL_MIN_MS * 2 ** Math.floor(looks / TASK_LOOKS_PER_DOUBLING);
  return Math.min(TASK_POLL_MAX_MS, Math.max(quiet, floor));
}

/**
 * Answers what a call asks its run until it asks nothing more, making the call again (`again`) with every answer so
 * far after each. A call's own requests are bounded ({@link MAX_CALL_NEEDS}: a call made again may ask again); a
 * task's looks by {@link MAX_TASK_LOOKS}, its requests (held by a worker, never made again) by those looks. A task
 * the run stops waiting on without its result (the run cancelled or out of time, an answer the call cannot use, too
 * many looks, a failed look) is cancelled on its server.
 */
export async function settleNeeds(
  state: RunState,
  call: ParsedToolCall,
  first: ToolObservation,
  again: (answers: Record<string, CallAnswer>) => Promise<ToolObservation>,
): Promise<ToolObservation> {
  let observation = first;
  let answers: Record<string, CallAnswer> = {};
  let asked = 0;
  let looks = 0;
  // Looks in a row that found the task saying the same (`said`: its status and words).
  let unchanged = 0;
  let said = '';
  let task: McpTaskState | undefined;
  let settled = false;
  try {
    for (let need = observation.needs; need; need = observation.needs) {
      if (need.kind === 'task') task = need.task;
      if (need.kind === 'task' ? ++looks > MAX_TASK_LOOKS : need.heldMs === undefined && ++asked > MAX_CALL_NEEDS) {
        const why =
          need.kind === 'task'
            ? `the run looked at task ${need.task.id} ${MAX_TASK_LOOKS} times and stopped waiting on it (it was cancelled)`
            : `it asked the run more than ${MAX_CALL_NEEDS} times (last: a ${need.kind} request)`;
        return errorObservation(call.tool, call.args, why, 'tool_error');
      }
      if (need.kind === 'task') {
        const now = `${need.task.status}\n${need.task.message ?? ''}`;
        unchanged = now === said ? unchanged + 1 : 0;
        said = now;
      }
      const answer = await answerNeed(state, call, need, unchanged, looks);
      if (typeof answer === 'string') return errorObservation(call.tool, call.args, answer, 'tool_error');
      answers = { ...answers, [need.key]: answer };
      observation = await again(answers);
    }
    settled = true;
    return observation;
  } finally {
    if (!settled && task) {
      const cancel: CallAnswer = { ...lookAt(task), cancel: true };
      await CancellationScope.nonCancellable(() => again({ ...answers, task: cancel }).catch(() => undefined));
    }
  }
}

/**
 * The run's answer to what a call asked it (see `CallNeed`): an MCP server's sampling request goes to the run's model
 * as a helper call of the run (recorded, in the cost ledger, within the token budget); an elicitation is the run's
 * question to a person, as pending, answered and audited as any question; a task is waited on. A string says why
 * there is no answer. For a task: `unchanged`, how many looks in a row before this one found it the same; `looks`, how
 * many in all.
 */
async function answerNeed(
  state: RunState,
  call: ParsedToolCall,
  need: CallNeed,
  unchanged: number,
  looks: number,
): Promise<CallAnswer | string> {
  if (need.kind === 'elicitation') return await askPerson(state, call, need);
  if (need.kind === 'task') return await waitOnTask(state, call, need.task, unchanged, looks);
  if (need.ask) {
    const refused = await askToSample(state, call, need);
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
 * `decline` or `cancel` (for a link to open, URL mode: `accept` once opened). No answer by the deadline is a decline.
 * The server checks the content itself.
 * The tool's approvers (`approvals.approvers`) are the ones who may fill in its server's forms; anyone may decline.
 */
async function askPerson(
  state: RunState,
  call: ParsedToolCall,
  { server, key, request, heldMs }: CallNeed & { kind: 'elicitation' },
): Promise<CallAnswer | string> {
  const { message, url, requestedSchema: schema } = request;
  const question =
    url !== undefined
      ? `${server} (a call of ${call.tool}) asks you to open ${url}: ${message}\n` +
        'Answer "accept" once you have, or "decline" or "cancel".'
      : `${server} (a call of ${call.tool}) asks: ${message}\n` +
        `Answer with JSON matching ${canonicalJson(schema ?? {})}, or "decline" or "cancel".`;
  const form = { server, message, ...(url !== undefined ? { url } : { schema: schema ?? {} }) };
  const { text, answered } = await askAboutCall(state, call, key, heldMs, question, form);
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
  { server, key, request, heldMs }: CallNeed & { kind: 'sampling' },
): Promise<string | null> {
  const asked = [
    ...(request.systemPrompt ? [`system: ${request.systemPrompt}`] : []),
    ...request.messages.map((message) => `${message.role}: ${message.text}`),
  ];
  const question =
    `${server} (a call of ${call.tool}) asks the run's model to write (at most ${request.maxTokens} tokens), from:\n` +
    `${asked.join('\n')}\nAnswer "accept" to let it, or "decline".`;
  const { text, answered } = await askAboutCall(state, call, key, heldMs, question);
  if (answered && /^\s*accept\s*$/i.test(text)) return null;
  return `${server}'s request for the run's model to write was ${answered ? 'declined' : 'not answered in time'}`;
}

/**
 * A task the call's server runs on: a `tool_progress` event when it says something new (`unchanged` 0: the first look
 * at this state), then a workflow timer (the worker holds nothing meanwhile, and a worker started since looks next),
 * then the call looks at it again.
 */
async function waitOnTask(
  state: RunState,
  call: ParsedToolCall,
  task: McpTaskState,
  unchanged: number,
  looks: number,
): Promise<CallAnswer> {
  if (unchanged === 0) {
    const { status, message } = task;
    state.events.toolProgress(call.callId, { status, ...(message !== undefined ? { message } : {}) });
  }
  await sleep(taskWaitMs(task, unchanged, looks));
  return lookAt(task);
}

/** The answer that makes the call look at its task again (in the task's HTTP session, when it has one). */
function lookAt(task: McpTaskState): CallAnswer & { kind: 'task' } {
  return { kind: 'task', id: task.id, ...(task.session !== undefined ? { session: task.session } : {}) };
}

/**
 * Asks the run's question for a call (a server's form, or its sampling request under `sampling: 'ask'`): answered by
 * the tool's approvers, under its signing rule; by `heldMs` when a worker holds the server's request (a task's), not
 * the approvals timeout.
 */
async function askAboutCall(
  state: RunState,
  call: ParsedToolCall,
  key: string,
  heldMs: number | undefined,
  question: string,
  form?: QuestionForm,
): Promise<{ text: string; answered: boolean }> {
  // The run holds one question at a time: one asked while another waits (parallel calls) is asked after it.
  await condition(() => state.approvals.question === null);
  const approvers = state.config.approvals.approvers[call.tool];
  const about = { tool: call.tool, ...(form ? { form } : {}), ...(approvers ? { approvers } : {}) };
  return await askUser(state, `${call.callId}.${key.slice(0, 8)}`, question, about, heldMs);
}
