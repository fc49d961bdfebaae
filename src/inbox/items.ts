import { PENDING_QUERY_TIMEOUT_MS, type PendingItem } from '../client/decisions';
import { describeCall } from '../shared/observation';
import { clipLine } from '../common/terminal-text';
import { html, prettyJson, type Html } from './html';
import { schemaFormFields } from './schema-form';

/** A stable DOM id for an item, so a live refresh keeps the forms a person is typing in. */
export function itemKey(item: PendingItem): string {
  return `item-${item.workflowId}-${item.callId}`.replace(/[^\w-]/g, '_');
}

function runHref(workflowId: string): string {
  return `/runs/${encodeURIComponent(workflowId)}`;
}

function when(iso: string): Html {
  return html`<time datetime="${iso}" data-age>${iso}</time>`;
}

/** The question a run was started with, as its page and its list rows show it: what the decision is for. */
export function renderAsked(question: string | undefined, clipped = false): Html | '' {
  return question ? html`<p class="asked">Asked: <q>${clipped ? clipLine(question) : question}</q></p>` : '';
}

/** One row of the inbox list: what waits, in which run (and what it was asked), since when. */
function row(item: PendingItem, questions: Readonly<Record<string, string>>): Html {
  const what =
    item.kind === 'approval'
      ? html`<span class="kind">${item.reason === 'uncertain_effect' ? 'may have happened' : 'approval'}</span>
          <code>${describeCall(item.tool, item.args, 120)}</code>`
      : html`<span class="kind">${item.kind}</span> ${item.question}`;
  return html`<tr data-kind="${item.kind}" data-tool="${item.kind === 'approval' ? item.tool : ''}">
    <td>${what}</td>
    <td>
      <a href="${runHref(item.workflowId)}">${item.workflowId}</a>${renderAsked(questions[item.workflowId], true)}
    </td>
    <td>${when(item.requestedAt)}</td>
    <td>${when(item.deadline)}</td>
  </tr>`;
}

/** Filters of the inbox list: a tool's name, and a minimum age in minutes. */
export interface ListFilter {
  tool?: string | undefined;
  olderThanMinutes?: number | undefined;
}

/** Items matching a filter; questions have no tool, so a tool filter leaves them out. */
export function filterItems(items: readonly PendingItem[], filter: ListFilter, nowMs: number): PendingItem[] {
  return items.filter((item) => {
    if (filter.tool && (item.kind !== 'approval' || item.tool !== filter.tool)) return false;
    if (filter.olderThanMinutes !== undefined) {
      const ageMs = nowMs - Date.parse(item.requestedAt);
      if (!(ageMs >= filter.olderThanMinutes * 60_000)) return false;
    }
    return true;
  });
}

/** The list of everything waiting, as the inbox page shows it and its stream re-sends; `questions` by workflow ID. */
export function renderList(
  items: readonly PendingItem[],
  unreadable: readonly string[] = [],
  questions: Readonly<Record<string, string>> = {},
): Html {
  // Runs whose worker did not answer may wait for someone too: say so, with links, instead of leaving them out.
  const notice = unreadable.length
    ? html`<p class="unreadable" role="status">
        ${unreadable.length} waiting run${unreadable.length === 1 ? '' : 's'} could not be read (no worker answered
        within ${PENDING_QUERY_TIMEOUT_MS / 1000} s):
        ${unreadable.map((id, index) => html`${index > 0 ? ', ' : ''}<a href="/runs/${encodeURIComponent(id)}">${id}</a>`)}
      </p>`
    : '';
  if (items.length === 0)
    return html`${notice}
      <p class="empty">Nothing is waiting for a decision.</p>`;
  const sorted = [...items].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  return html`${notice}
    <table>
      <caption>
        ${items.length} waiting
      </caption>
      <thead>
        <tr>
          <th scope="col">What</th>
          <th scope="col">Run</th>
          <th scope="col">Waiting since</th>
          <th scope="col">Deadline</th>
        </tr>
      </thead>
      <tbody>
        ${sorted.map((item) => row(item, questions))}
      </tbody>
    </table>`;
}

function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

function decisionForms(item: PendingItem & { kind: 'approval' }, csrf: string): Html {
  const action = `${runHref(item.workflowId)}/decide`;
  const base = html`${hidden('csrf', csrf)}${hidden('callId', item.callId)}${hidden('argsHash', item.argsHash)}`;
  return html`<form method="post" action="${action}" class="decision">
      ${base}
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" name="decision" value="approve_always">Approve always</button>
    </form>
    <details>
      <summary>Reject with a reason</summary>
      <form method="post" action="${action}" class="decision">
        ${base}
        <label>Reason (the model sees it) <textarea name="reason" required rows="2"></textarea></label>
        <button type="submit" name="decision" value="reject">Reject</button>
      </form>
    </details>
    <details>
      <summary>Edit the arguments</summary>
      <form
        method="post"
        action="${action}"
        class="decision"
        data-schema="${item.parameters ? JSON.stringify(item.parameters) : ''}"
      >
        ${base}
        <label
          >Arguments (JSON)
          <textarea name="args" class="json-editor" rows="8" spellcheck="false">${prettyJson(item.args)}</textarea>
        </label>
        <p class="schema-problems" aria-live="polite"></p>
        <button type="submit" name="decision" value="edit">Run with these arguments</button>
      </form>
    </details>
    <details>
      <summary>Respond as the tool</summary>
      <form method="post" action="${action}" class="decision">
        ${base}
        <label
          >Observation (the model sees it as the result) <textarea name="observation" required rows="3"></textarea>
        </label>
        <button type="submit" name="decision" value="respond">Respond</button>
      </form>
    </details>`;
}

/** Run again (approve), treat as done with a result (respond), or skip (reject): an uncertain call's choices. */
function uncertainForms(item: PendingItem & { kind: 'approval' }, csrf: string): Html {
  const action = `${runHref(item.workflowId)}/decide`;
  const base = html`${hidden('csrf', csrf)}${hidden('callId', item.callId)}${hidden('argsHash', item.argsHash)}`;
  return html`<form method="post" action="${action}" class="decision">
      ${base}
      <button type="submit" name="decision" value="approve">Run it again</button>
    </form>
    <form method="post" action="${action}" class="decision">
      ${base}
      <label>Its result (the model sees it) <textarea name="observation" required rows="3"></textarea></label>
      <button type="submit" name="decision" value="respond">Treat as done</button>
    </form>
    <form method="post" action="${action}" class="decision">
      ${base}
      <label>Why skip it (the model sees it) <textarea name="reason" required rows="2"></textarea></label>
      <button type="submit" name="decision" value="reject">Skip it</button>
    </form>`;
}

/** One pending item with everything needed to decide it. */
export function renderItem(item: PendingItem, csrf: string): Html {
  const key = itemKey(item);
  const child = html`<p class="meta">
    Run <a href="${runHref(item.workflowId)}">${item.workflowId}</a> · ${item.kind === 'budget' ? 'request' : 'call'}
    <code>${item.callId}</code> · waiting since ${when(item.requestedAt)} · deadline ${when(item.deadline)}
  </p>`;
  if (item.kind === 'question' && item.form) {
    const { form } = item;
    return html`<article class="item" id="${key}" aria-labelledby="${key}-h" data-kind="form">
      <h3 id="${key}-h">${form.url ? 'Link' : 'Form'} from ${form.server} (a call of <code>${item.tool}</code>)</h3>
      ${child} ${item.approvers ? html`<p class="meta">Only ${item.approvers.join(', ')} may fill it in.</p>` : ''}
      <form
        method="post"
        action="${runHref(item.workflowId)}/answer"
        class="decision"
        ${form.schema ? html`data-schema-form data-schema="${JSON.stringify(form.schema)}"` : ''}
      >
        ${hidden('csrf', csrf)}${hidden('callId', item.callId)} ${schemaFormFields(form)}
      </form>
      <p class="outcome" role="status" aria-live="polite"></p>
    </article>`;
  }
  if (item.kind === 'question') {
    return html`<article class="item" id="${key}" aria-labelledby="${key}-h">
      <h3 id="${key}-h">Question: ${item.question}</h3>
      ${child}
      <form method="post" action="${runHref(item.workflowId)}/answer" class="decision">
        ${hidden('csrf', csrf)}${hidden('callId', item.callId)}
        <label>Your answer <textarea name="answer" required rows="3"></textarea></label>
        <button type="submit">Answer</button>
      </form>
      <p class="outcome" role="status" aria-live="polite"></p>
    </article>`;
  }
  if (item.kind === 'budget') {
    return html`<article class="item" id="${key}" aria-labelledby="${key}-h">
      <h3 id="${key}-h">${item.question}</h3>
      ${child}
      <p class="meta">${item.detail}. Without a decision by the deadline the run stops there.</p>
      <form method="post" action="${runHref(item.workflowId)}/budget" class="decision">
        ${hidden('csrf', csrf)}${hidden('requestId', item.requestId)}
        <label
          >Raise by (${item.unit})
          <input
            type="number"
            name="amount"
            min="${item.unit === 'USD' ? '0.000001' : '1'}"
            step="${item.unit === 'USD' ? 'any' : '1'}"
            value="${String(item.suggested)}"
            required
        /></label>
        <button type="submit" name="decision" value="raise">Raise</button>
        <button type="submit" name="decision" value="stop" formnovalidate>Stop there</button>
      </form>
      <p class="outcome" role="status" aria-live="polite"></p>
    </article>`;
  }
  if (item.reason === 'uncertain_effect') {
    // The call already ran and its outcome was lost: the same decisions, worded for what they do here.
    return html`<article class="item" id="${key}" aria-labelledby="${key}-h" data-reason="uncertain_effect">
      <h3 id="${key}-h">This <code>${item.tool}</code> call may have happened</h3>
      ${child}
      <pre class="args" aria-label="Arguments">${prettyJson(item.args)}</pre>
      ${item.detail !== undefined ? html`<p class="meta">The tool could not tell: ${item.detail}</p>` : ''}
      ${uncertainForms(item, csrf)}
      <p class="outcome" role="status" aria-live="polite"></p>
    </article>`;
  }
  return html`<article class="item" id="${key}" aria-labelledby="${key}-h">
    <h3 id="${key}-h">Run <code>${item.tool}</code>?</h3>
    ${child}
    <pre class="args" aria-label="Arguments">${prettyJson(item.args)}</pre>
    ${item.approvers ? html`<p class="meta">Only ${item.approvers.join(', ')} may approve this call.</p>` : ''}
    ${decisionForms(item, csrf)}
    <p class="outcome" role="status" aria-live="polite"></p>
  </article>`;
}

/** What one run (and its subagents) waits for, as the run page shows it and its stream re-sends. */
export function renderRunPending(
  items: readonly PendingItem[],
  csrf: string,
  ended: boolean,
  unreadable: string | null = null,
): Html {
  if (unreadable !== null)
    return html`<p class="unreadable" role="status">
      What this run waits for could not be read: no worker answered within ${PENDING_QUERY_TIMEOUT_MS / 1000} s (is the
      worker of its task queue running?). ${unreadable}
    </p>`;
  if (items.length === 0)
    return html`<p class="empty">
      ${ended ? 'The run has ended.' : 'Nothing is waiting for a decision in this run.'}
    </p>`;
  return html`${items.map((item) => renderItem(item, csrf))}`;
}
