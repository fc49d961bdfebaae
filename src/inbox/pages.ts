import type { ServerResponse } from 'node:http';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { followEvents } from '../client/events';
import { listPendingInRun, type PendingItem } from '../client/decisions';
import { formatEvent } from '../cli/event-printer';
import type { Authenticated } from './auth';
import { html, page } from './html';
import { filterItems, renderList, renderRunPending, type ListFilter } from './items';
import { openStream, sendEvent, type PendingFeed } from './live';

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
  const items = filterItems(await feed.current(), filter, Date.now());
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
        ${renderList(items)}
      </section>`,
  });
}

/** Streams the filtered list whenever it changes. */
export async function streamInbox(response: ServerResponse, feed: PendingFeed, url: URL): Promise<void> {
  const filter = filterOf(url);
  const { closed } = openStream(response);
  let last = '';
  const unsubscribe = feed.subscribe((items) => {
    const fragment = renderList(filterItems(items, filter, Date.now())).html;
    if (fragment !== last) sendEvent(response, 'fragment', fragment);
    last = fragment;
  });
  await closed;
  unsubscribe();
}

/** A run's page: what it waits for (with the forms to decide it) and its trace, both live. */
export async function runPage(
  auth: Authenticated,
  client: Client,
  description: WorkflowExecutionDescription,
): Promise<string> {
  const { workflowId } = description;
  const running = description.status.name === 'RUNNING';
  const items = running ? await listPendingInRun(client, workflowId).catch(() => []) : [];
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
        ${renderRunPending(items, auth.csrf, !running)}
      </section>
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
    const items: PendingItem[] = running ? await listPendingInRun(client, workflowId).catch(() => []) : [];
    const fragment = renderRunPending(items, auth.csrf, !running).html;
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
    }
    if (!controller.signal.aborted) sendEvent(response, 'end', '{}');
  } catch (error) {
    sendEvent(response, 'error', JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  } finally {
    response.end();
  }
}
