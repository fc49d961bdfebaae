import type { ServerResponse } from 'node:http';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { followEvents } from '../client/events';
import { listPendingInRun, PENDING_QUERY_TIMEOUT_MS, type PendingItem } from '../client/decisions';
import { formatEvent } from '../client/event-printer';
import { readClosedRun } from '../client/closed-run';
import { describeCost, type RunCost } from '../shared/cost';
import { costReport } from '../shared/cost-report';
import type { CostSummary } from '../shared/events';
import { getTraceQuery } from '../shared/messages';
import type { Authenticated } from './auth';
import { html, page } from './html';
import { filterItems, renderList, renderRunPending, type ListFilter } from './items';
import { openStream, sendEvent, type PendingFeed } from './live';
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
  const { items: all, unreadable } = await feed.current();
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
        ${renderList(items, unreadable)}
      </section>`,
  });
}

/** Streams the filtered list whenever it changes. */
export async function streamInbox(response: ServerResponse, feed: PendingFeed, url: URL): Promise<void> {
  const filter = filterOf(url);
  const { closed } = openStream(response);
  let last = '';
  const unsubscribe = feed.subscribe(({ items, unreadable }) => {
    const fragment = renderList(filterItems(items, filter, Date.now()), unreadable).html;
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
    ${running ? html`<p class="meta">So far; reload for the latest.</p>` : ''}`;
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
  const [{ items, unreadable }, cost] = await Promise.all([
    running ? pendingOfRun(client, workflowId) : { items: [], unreadable: null },
    costOfRun(client, workflowId, running),
  ]);
  const id = encodeURIComponent(workflowId);
  return page({
    title: workflowId,
    user: auth.user.name,
    csrf: auth.csrf,
    body: html`<p><a href="/">← All waiting items</a></p>
      <h1>Run <code>${workflowId}</code></h1>
      <p class="meta">
        Status: <strong>${description.status.name}</strong> · started ${description.startTime.toISOString()}
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
    const running = (await handle.describe()).status.name === 'RUNNING';
    const { items, unreadable } = running ? await pendingOfRun(client, workflowId) : { items: [], unreadable: null };
    const fragment = renderRunPending(items, auth.csrf, !running, unreadable).html;
    if (fragment !== last) sendEvent(response, 'fragment', fragment);
    last = fragment;
    if (!running) {
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

/** Streams a run's trace as list items, from its event stream; resumes after `Last-Event-ID`. */
export async function streamTrace(
  response: ServerResponse,
  client: Client,
  workflowId: string,
  after: number,
): Promise<void> {
  const { closed } = openStream(response);
  const controller = new AbortController();
  void closed.then(() => controller.abort());
  try {
    for await (const event of followEvents(client, workflowId, { after, signal: controller.signal })) {
      const line = formatEvent(event);
      const seq = 'seq' in event ? event.seq : undefined;
      if (line !== undefined)
        sendEvent(response, 'trace', html`<li class="ev-${event.type}">${line.trim()}</li>`.html, seq);
      if (event.type === 'terminated' && event.cost)
        sendEvent(response, 'trace', html`<li class="ev-cost">Cost: ${describeCostSummary(event.cost)}</li>`.html);
    }
    if (!controller.signal.aborted) sendEvent(response, 'end', '{}');
  } catch (error) {
    sendEvent(response, 'error', JSON.stringify({ error: errorMessage(error) }));
  } finally {
    response.end();
  }
}
