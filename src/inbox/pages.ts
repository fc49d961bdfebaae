import type { ServerResponse } from 'node:http';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { followEvents } from '../client/events';
import { listPendingInRun, PENDING_QUERY_TIMEOUT_MS, type PendingItem } from '../client/decisions';
import { formatEvent } from '../client/event-printer';
import { eventsOfClosedRun, readClosedRun } from '../client/closed-run';
import type { EventsGap } from '../client/follow-options';
import { describeCost, type RunCost } from '../shared/cost';
import { costReport } from '../shared/cost-report';
import type { AgentEvent, CostSummary } from '../shared/events';
import { getTraceQuery } from '../shared/messages';
import type { Authenticated } from './auth';
import { html, page } from './html';
import { filterItems, renderAsked, renderList, renderRunPending, type ListFilter } from './items';
import { openStream, questionOf, sendEvent, type PendingFeed } from './live';
import { errorMessage } from '../shared/errors';

/** The list filter from a URL: `?tool=` and `?olderThan=` (minutes); bad numbers are ignored, not fatal. */
export function filterOf(url: URL): ListFilter {
  const tool = url.searchParams.get('tool')?.trim() || undefined;
  const minutes = Number(url.searchParams.get('olderThan'));
  return { tool, olderThanMinutes: Number.isFinite(minutes) && minutes > 0 ? minutes : undefined };
}

function filterQuery(filter: ListFilter): string {
  const params = new URLSearchParams();
  if (filter.tool) params.set('tool', filter.tool);
  if (filter.olderThanMinutes !== undefined) params.set('olderThan', String(filter.olderThanMinutes));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** The inbox: everything waiting for a person across runs, filterable, kept current by a stream. */
export async function inboxPage(auth: Authenticated, feed: PendingFeed, url: URL): Promise<string> {
  const filter = filterOf(url);
  const { items: all, unreadable, questions } = await feed.current();
  const items = filterItems(all, filter, Date.now());
  return page({
    title: 'Waiting for you',
    user: auth.user.name,
    csrf: auth.csrf,
    body: html`<h1>Waiting for a person</h1>
      <form method="get" action="/" class="filters" role="search">
        <label>Tool <input type="text" name="tool" value="${filter.tool ?? ''}" /></label>
        <label
          >Waiting longer than (minutes)
          <input type="number" min="0" name="olderThan" value="${filter.olderThanMinutes ?? ''}"
        /></label>
        <button type="submit">Filter</button>
      </form>
      <section id="list" aria-live="polite" data-stream="/inbox/stream${filterQuery(filter)}" data-mode="replace">
        ${renderList(items, unreadable, questions)}
      </section>`,
  });
}

/** Streams the filtered list whenever it changes. */
export async function streamInbox(response: ServerResponse, feed: PendingFeed, url: URL): Promise<void> {
  const filter = filterOf(url);
  const { closed } = openStream(response);
  let last = '';
  const unsubscribe = feed.subscribe(({ items, unreadable, questions }) => {
    const fragment = renderList(filterItems(items, filter, Date.now()), unreadable, questions).html;
    if (fragment !== last) sendEvent(response, 'fragment', fragment);
    last = fragment;
  });
  await closed;
  unsubscribe();
}

/**
 * What a run waits for, read within {@link PENDING_QUERY_TIMEOUT_MS}: a run whose worker is gone never answers its
 * query, and its page used to wait half a minute and then say nothing was waiting.
 */
async function pendingOfRun(
  client: Client,
  workflowId: string,
): Promise<{ items: PendingItem[]; unreadable: string | null }> {
  try {
    const deadline = Date.now() + PENDING_QUERY_TIMEOUT_MS;
    return {
      items: await client.connection.withDeadline(deadline, () => listPendingInRun(client, workflowId)),
      unreadable: null,
    };
  } catch (error) {
    return { items: [], unreadable: errorMessage(error) };
  }
}

/**
 * What the run cost so far, as the ledger's lines: a closed run's from its history, a live one's by query (within
 * {@link PENDING_QUERY_TIMEOUT_MS}, as its worker may be gone); null when neither answers or the run kept no ledger.
 */
async function costOfRun(client: Client, workflowId: string, running: boolean): Promise<RunCost | null> {
  try {
    if (!running) return (await readClosedRun(client, workflowId))?.trace.cost ?? null;
    const deadline = Date.now() + PENDING_QUERY_TIMEOUT_MS;
    const trace = await client.connection.withDeadline(deadline, () =>
      client.workflow.getHandle(workflowId).query(getTraceQuery),
    );
    return trace.cost ?? null;
  } catch {
    return null;
  }
}

function renderCost(cost: RunCost | null, running: boolean) {
  if (!cost) return html`<p class="meta">Not known: the run kept no cost ledger, or no worker answered.</p>`;
  return html`<pre class="cost">${costReport(cost).join('\n')}</pre>
    ${running ? html`<p class="meta">So far; brought up to date when the run ends.</p>` : ''}`;
}

/** A run's page: what it waits for (with the forms to decide it), what it cost, and its trace, live. */
export async function runPage(
  auth: Authenticated,
  client: Client,
  description: WorkflowExecutionDescription,
): Promise<string> {
  const { workflowId } = description;
  const running = description.status.name === 'RUNNING';
  // Side by side: a run whose worker is gone answers neither, and each waits its deadline out.
  const [{ items, unreadable }, cost, question] = await Promise.all([
    running ? pendingOfRun(client, workflowId) : { items: [], unreadable: null },
    costOfRun(client, workflowId, running),
    questionOf(client, workflowId).catch(() => undefined),
  ]);
  const id = encodeURIComponent(workflowId);
  return page({
    title: workflowId,
    user: auth.user.name,
    csrf: auth.csrf,
    body: html`<p><a href="/">← All waiting items</a></p>
      <h1>Run <code>${workflowId}</code></h1>
      ${renderAsked(question)}
      <p class="meta">
        Status: <strong id="status">${description.status.name}</strong> · started ${description.startTime.toISOString()}
      </p>
      <h2>Waiting for a decision</h2>
      <section id="pending" data-stream="/runs/${id}/pending/stream" data-mode="merge">
        ${renderRunPending(items, auth.csrf, !running, unreadable)}
      </section>
      <h2>Cost</h2>
      <section id="cost">${renderCost(cost, running)}</section>
      <h2>Trace</h2>
      <ol class="trace" id="trace" aria-live="polite" data-stream="/runs/${id}/trace/stream" data-mode="append"></ol>`,
  });
}

/** Re-sends a run's pending items (its subagents' too) when they change, until the run ends. */
export async function streamRunPending(
  response: ServerResponse,
  client: Client,
  auth: Authenticated,
  workflowId: string,
  intervalMs = 1000,
): Promise<void> {
  const { closed } = openStream(response);
  let open = true;
  void closed.then(() => (open = false));
  let last = '';
  const handle = client.workflow.getHandle(workflowId);
  while (open) {
    const status = (await handle.describe()).status.name;
    const running = status === 'RUNNING';
    const { items, unreadable } = running ? await pendingOfRun(client, workflowId) : { items: [], unreadable: null };
    const fragment = renderRunPending(items, auth.csrf, !running, unreadable).html;
    if (fragment !== last) sendEvent(response, 'fragment', fragment);
    last = fragment;
    if (!running) {
      // The page's status and cost are as they were when it loaded: its reader should not have to reload to see how
      // the run ended and what it cost.
      const cost = await costOfRun(client, workflowId, false);
      // A run whose history keeps no ledger (terminated, timed out) keeps the figures the page has.
      const swap = html`<strong id="status">${status}</strong>
        ${cost ? html`<section id="cost">${renderCost(cost, false)}</section>` : ''}`;
      sendEvent(response, 'swap', swap.html);
      sendEvent(response, 'end', '{}');
      break;
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, intervalMs)), closed]);
  }
  response.end();
}

function describeCostSummary(cost: CostSummary): string {
  return describeCost({
    usd: cost.usd,
    unpricedTokens: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: cost.tokens },
    engineActionsTotal: cost.engineActions,
  });
}

/** An event's lines in the trace list (none for the events it leaves to other parts of the page). */
function traceLines(event: AgentEvent | EventsGap): string[] {
  const line = formatEvent(event);
  const lines = line === undefined ? [] : [html`<li class="ev-${event.type}">${line.trim()}</li>`.html];
  if (event.type === 'terminated' && event.cost)
    lines.push(html`<li class="ev-cost">Cost: ${describeCostSummary(event.cost)}</li>`.html);
  return lines;
}

/** A completed or failed run's trace lines, rebuilt from its history (no worker needed); undefined for other runs. */
async function linesFromHistory(client: Client, workflowId: string): Promise<string[] | undefined> {
  try {
    const run = await readClosedRun(client, workflowId);
    if (!run) return undefined;
    return eventsOfClosedRun(run.trace, (await run.start()).query, run.failed, run.closedAt).flatMap(traceLines);
  } catch {
    return undefined;
  }
}

/**
 * Streams a run's trace as list items, from its event stream; resumes after `Last-Event-ID`. A `reset` event says
 * that the lines after it replace those shown.
 */
export async function streamTrace(
  response: ServerResponse,
  client: Client,
  workflowId: string,
  after: number,
): Promise<void> {
  const { closed } = openStream(response);
  const controller = new AbortController();
  void closed.then(() => controller.abort());
  // A finished run's trace is shown from its history at once: its events query waits seconds for a worker that is
  // often gone. A worker's answer replaces it only if it says more (decisions, critic verdicts, summaries).
  const early = after === 0 ? await linesFromHistory(client, workflowId) : undefined;
  if (early) {
    sendEvent(response, 'reset', '{}');
    for (const line of early) sendEvent(response, 'trace', line);
  }
  try {
    const later: string[] = [];
    for await (const event of followEvents(client, workflowId, { after, signal: controller.signal })) {
      const seq = 'seq' in event ? event.seq : undefined;
      for (const line of traceLines(event)) {
        if (early) later.push(line);
        else sendEvent(response, 'trace', line, seq);
      }
    }
    if (controller.signal.aborted) return;
    if (early && later.join('\n') !== early.join('\n')) {
      sendEvent(response, 'reset', '{}');
      for (const line of later) sendEvent(response, 'trace', line);
    }
    sendEvent(response, 'end', '{}');
  } catch (error) {
    // What history told is the trace when the worker's reading fails; otherwise there is nothing to show but why.
    if (early) sendEvent(response, 'end', '{}');
    else sendEvent(response, 'error', JSON.stringify({ error: errorMessage(error) }));
  } finally {
    response.end();
  }
}
