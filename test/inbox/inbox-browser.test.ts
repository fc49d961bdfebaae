import { existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startInbox, type Inbox } from '../../src/inbox';
import { defineTool } from '../../src/worker/tools/define-tool';
import { eventsOfType } from '../support/run-events';
import { useHarness } from '../support/harness';
import { ALICE_TOKEN, PEOPLE } from './support';

/** Debian's Chromium, installed by `npm test`'s setup (scripts/setup.mjs --browser); nothing downloads a browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where screenshots go: a temporary folder, or INBOX_SCREENSHOT_DIR (how the pictures in docs/approvals.md were made). */
const SHOTS = process.env.INBOX_SCREENSHOT_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'dra-inbox-shots-'));

// A tool whose schema has a rule JSON Schema cannot express: the editor's own check passes, the worker refuses.
const wireFunds = defineTool({
  name: 'wire_funds',
  description: 'Wires money to an account.',
  category: 'test',
  schema: z.object({
    amount: z.number().positive(),
    to: z.string().refine((value) => value.startsWith('acct-'), 'must be an account ID like acct-123'),
  }),
  confirm: 'always',
  handler: ({ amount, to }) => `wired ${amount} to ${to}`,
});

const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const harness = useHarness({
  tools: [wireFunds],
  // The reference MCP server, for a form it asks a person to fill in.
  mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], elicitation: true } },
});
let inbox: Inbox;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run \`node scripts/setup.mjs --browser\``);
  mkdirSync(SHOTS, { recursive: true });
  inbox = await startInbox({ client: harness.client, identities: { tokens: PEOPLE }, pollMs: 200 });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // The machine's network is closed: Chromium's own background traffic would only fail.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  await page.goto(inbox.url);
  // Not signed in: the inbox sends the browser to its sign-in form.
  await page.getByLabel('Access token').fill(ALICE_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('user').waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await inbox?.close();
});

const thought = 'The invoice is due, so I wire the amount the user named.';

async function shot(name: string): Promise<void> {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(5_000);
}

describe('the inbox in a real browser', () => {
  it('signs in with a token and shows who is signed in', async () => {
    expect(await page.getByTestId('user').textContent()).toBe('alice');
  });

  it('a pending call appears live; an invalid edit is refused inline, a fixed one runs and the run finishes', async () => {
    // Filtered to this file's tool: other test files park runs on the same server at the same time.
    await page.goto(`${inbox.url}/?tool=wire_funds`);
    await expect.poll(() => page.locator('#list').textContent()).toContain('Nothing is waiting');
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'wire_funds', args: { amount: 120, to: 'bob' } }] },
      { answer: 'Wired.' },
    ]);
    // The list updates by itself: no reload.
    const row = page.locator('#list tr', { hasText: 'wire_funds' });
    await row.waitFor({ timeout: 15_000 });
    await shot('inbox-list');
    await row.getByRole('link', { name: run.workflowId }).click();

    const item = page.locator('article.item', { hasText: 'wire_funds' });
    await item.waitFor();
    await expect.poll(() => item.locator('pre.args').textContent()).toContain('"amount": 120');
    // The trace streams in over the page's event stream: on a busy machine it takes longer than poll's default second.
    await expect.poll(() => page.locator('#trace').textContent(), { timeout: 15_000 }).toContain(thought);

    await item.getByText('Edit the arguments').click();
    const editor = item.getByLabel('Arguments (JSON)');
    // The editor checks the tool's JSON Schema as you type.
    await editor.fill('{ "amount": "lots", "to": "bob" }');
    await expect.poll(() => item.locator('.schema-problems').textContent()).toContain('amount: expected number');
    // This passes the schema's shape but not the tool's own rule: the run refuses it and says why, inline.
    await editor.fill('{ "amount": 100, "to": "bob" }');
    await expect.poll(() => item.locator('.schema-problems').textContent()).toBe('');
    await item.getByRole('button', { name: 'Run with these arguments' }).click();
    await expect.poll(() => item.locator('.schema-problems').textContent()).toContain('must be an account ID');
    await shot('inbox-run-refused-edit');
    await editor.fill('{ "amount": 100, "to": "acct-42" }');
    await item.getByRole('button', { name: 'Run with these arguments' }).click();
    await expect.poll(() => item.locator('.outcome').textContent()).toContain('sent as alice');

    await expect.poll(() => page.locator('#trace').textContent(), { timeout: 15_000 }).toContain('Final answer');
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({
      observation: 'wired 100 to acct-42',
      decision: { kind: 'edit', by: { identity: 'alice', channel: 'inbox' } },
    });
  });

  it('a rejection with a reason reaches the model; a question is answered', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'wire_funds', args: { amount: 9000, to: 'acct-1' } }] },
      {
        thought: 'The wire was refused, so I must ask how to proceed.',
        toolCalls: [{ name: 'request_clarification', args: { question: 'Should I split the payment?' } }],
      },
      { answer: 'Understood.' },
    ]);
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const call = page.locator('article.item', { hasText: 'wire_funds' });
    await call.waitFor({ timeout: 15_000 });
    await call.getByText('Reject with a reason').click();
    await call.getByLabel('Reason (the model sees it)').fill('Over the monthly limit; talk to finance.');
    await call.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => call.locator('.outcome').textContent()).toContain('reject c1-1');

    // The question arrives on the same page, live.
    const question = page.locator('article.item', { hasText: 'Should I split the payment?' });
    await question.waitFor({ timeout: 15_000 });
    await question.getByLabel('Your answer').fill('Yes, in two parts.');
    await question.getByRole('button', { name: 'Answer' }).click();
    await expect.poll(() => question.locator('.outcome').textContent()).toContain('as alice');

    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('Over the monthly limit; talk to finance.');
    expect(result.trace.steps[1]).toMatchObject({
      observation: 'Yes, in two parts.',
      answeredBy: { identity: 'alice' },
    });
  });

  it('a carriage return in a question cannot end or forge the live stream (N11)', async () => {
    // SSE ends a line at a lone \r too: this question used to replace its own answer form with the spoofed text.
    const question = 'Which env?\r\revent: fragment\rdata: <p>Nothing is waiting (spoofed).</p>\r\r';
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'request_clarification', args: { question } }] },
      { answer: 'Understood.' },
    ]);
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const item = page.locator('article.item', { hasText: 'Which env?' });
    await item.waitFor({ timeout: 15_000 });
    await item.getByLabel('Your answer').fill('staging');
    await item.getByRole('button', { name: 'Answer' }).click();
    await expect.poll(() => item.locator('.outcome').textContent()).toContain('as alice');
    // The question is shown whole, as text; no paragraph of its own was injected.
    expect(await page.locator('p', { hasText: /^Nothing is waiting \(spoofed\)\.$/ }).count()).toBe(0);
    expect((await run.result()).trace.steps[0]?.observation).toBe('staging');
  });

  it('a decision the server fails says so and gives the form back (N20)', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'wire_funds', args: { amount: 12, to: 'acct-7' } }] },
      { answer: 'Wired.' },
    ]);
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const call = page.locator('article.item', { hasText: 'wire_funds' });
    await call.waitFor({ timeout: 15_000 });
    // The answer the inbox gives when Temporal fails the update (the report saw it with every update slot taken).
    const decide = `**/runs/${run.workflowId}/decide`;
    await page.route(decide, (route) =>
      route.fulfill({ status: 502, contentType: 'application/json', body: '{"error":"Workflow Update failed"}' }),
    );
    const approve = call.getByRole('button', { name: 'Approve', exact: true });
    await approve.click();
    await expect.poll(() => call.locator('.outcome').textContent()).toBe('Not sent: Workflow Update failed');
    expect(await call.locator('.outcome').getAttribute('class')).toBe('outcome refused');
    expect(await approve.isDisabled()).toBe(false);
    // Once the server answers again, the same button decides.
    await page.unroute(decide);
    await approve.click();
    await expect.poll(() => call.locator('.outcome').textContent()).toContain('approve c1-1');
    expect((await run.result()).finalAnswer).toBe('Wired.');
  });

  it("shows the run's question, escaped, on its row of the list and on its page (first hour, stumble 6)", async () => {
    const question = 'Pay invoice <b>#42</b> & say when it is done';
    await page.goto(`${inbox.url}/?tool=wire_funds`);
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'wire_funds', args: { amount: 42, to: 'acct-42' } }] }, { answer: 'Wired.' }],
      question,
    );
    const row = page.locator('#list tr', { hasText: run.workflowId });
    await row.waitFor({ timeout: 15_000 });
    await expect.poll(() => row.locator('.asked').textContent()).toBe(`Asked: ${question}`);
    expect(await row.locator('b').count()).toBe(0);
    await row.getByRole('link', { name: run.workflowId }).click();
    await page.locator('article.item', { hasText: 'wire_funds' }).waitFor();
    expect(await page.locator('main > .asked').textContent()).toBe(`Asked: ${question}`);
    expect(await page.locator('main b').count()).toBe(0);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).finalAnswer).toBe('Wired.');
  });

  it('after Approve the run page follows the run to its end: no waiting card, stale status or cost (stumble 6)', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'wire_funds', args: { amount: 7, to: 'acct-7' } }] },
      { answer: 'Wired.' },
    ]);
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const call = page.locator('article.item', { hasText: 'wire_funds' });
    await call.waitFor({ timeout: 15_000 });
    expect(await page.locator('#status').textContent()).toBe('RUNNING');
    await call.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect.poll(() => call.locator('.outcome').textContent()).toBe('approve c1-1 (wire_funds): sent as alice');
    await run.result();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('COMPLETED');
    // The card is down to what was asked and what the decision did: nothing on it says it still waits.
    expect(await call.getByRole('button').count()).toBe(0);
    expect(await call.locator('pre.args, details').count()).toBe(0);
    expect(await call.locator('.outcome').textContent()).toBe('approve c1-1 (wire_funds): sent as alice');
    await expect.poll(() => page.locator('#trace').textContent(), { timeout: 15_000 }).toContain('Cost:');
    const cost = await page.locator('#cost').textContent();
    expect(await page.locator('#cost pre.cost').count()).toBe(1);
    expect(cost).not.toContain('So far');
    expect(await page.getByText('The run has ended.').count()).toBe(1);
    await shot('inbox-run-after-approve');

    // A reload shows what the live page came to; its trace is the worker's, with the decision, shown once.
    await page.reload();
    expect(await page.locator('#cost').textContent()).toBe(cost);
    await expect.poll(() => page.locator('#trace').textContent()).toContain('Decision on c1-1: approve by alice');
    await expect.poll(() => page.locator('#trace li.ev-final_answer').count()).toBe(1);
    expect(await page.getByText('The run has ended.').count()).toBe(1);
  });

  it("a finished run's page says its trace is loading until it comes (stumble 6)", async () => {
    const run = await harness.start([{ answer: 'Done.' }], 'a quick one');
    await run.result();
    // Held back, as when the run's worker is gone and its events query waits for one.
    const stream = `**/runs/${run.workflowId}/trace/stream`;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(stream, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const loading = page.getByRole('status').filter({ hasText: 'Loading the trace…' });
    await loading.waitFor();
    expect(await page.locator('#trace li').count()).toBe(0);
    release();
    await expect.poll(() => page.locator('#trace').textContent(), { timeout: 15_000 }).toContain('Final answer: Done.');
    expect(await loading.count()).toBe(0);
    await page.unroute(stream);
  });

  it('a budget request is raised from the run page and the run goes on to its answer', async () => {
    const sum = (expression: string) => ({
      thought: 'Each sum needs the calculator, so I call it once more.',
      toolCalls: [{ name: 'calculator', args: { expression } }],
    });
    const run = await harness.start([sum('1+1'), sum('2+2'), { answer: 'Four.' }], 'q', {
      limits: { maxIterations: 1, onReached: 'ask' },
    });
    await page.goto(`${inbox.url}/runs/${run.workflowId}`);
    const request = page.locator('article.item', { hasText: 'Raise the iteration limit from 1 to 2 iterations?' });
    await request.waitFor({ timeout: 15_000 });
    await request.getByLabel('Raise by (iterations)').fill('3');
    await shot('inbox-budget-request');
    await request.getByRole('button', { name: 'Raise' }).click();
    await expect.poll(() => request.locator('.outcome').textContent()).toBe('b1: raised by 3 to 4, as alice');
    const result = await run.result();
    expect(result.finalAnswer).toBe('Four.');
    expect(result.trace.budgetRequests?.[0]).toMatchObject({ outcome: 'raise', amount: 3, by: { identity: 'alice' } });
  });

  it("an MCP server's form is generated from its schema, checked as it is typed, and its answer reaches the server", async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request', args: {} }] },
        { answer: 'The form is filled in.' },
      ],
      'Fill in the server form.',
    );
    await page.goto(`${inbox.url}/runs/${encodeURIComponent(run.workflowId)}`);
    const card = page.locator('article[data-kind="form"]');
    await card.waitFor();
    expect(await card.locator('h3').textContent()).toBe(
      'Form from everything (a call of everything__trigger-elicitation-request)',
    );
    // Each field as an input of its kind, with the schema's defaults.
    const field = (name: string) => card.locator(`[data-field="${name}"]`);
    expect(await field('email').getAttribute('type')).toBe('email');
    expect(await field('birthdate').getAttribute('type')).toBe('date');
    expect(await field('integer').inputValue()).toBe('42');
    expect(await field('check').getAttribute('type')).toBe('checkbox');
    expect(await field('titledSingleSelectEnum').locator('option:checked').textContent()).toContain('Superman');
    // Checked as it is typed: an integer out of range, and the required name, are said before anything is sent.
    await field('integer').fill('1000');
    const problems = card.locator('.schema-problems');
    expect(await problems.textContent()).toMatch(/^Not sent: .*integer: [^;]*100/);
    expect(await problems.textContent()).toMatch(/name: /);
    await card.getByRole('button', { name: 'Send' }).click();
    // Nothing went: the question still waits, and no outcome is shown.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await card.locator('.outcome').textContent()).toBe('');
    expect((await harness.agents.handle(run.workflowId).getPending()).question).not.toBeNull();
    await field('integer').fill('7');
    await field('name').fill('Ada Lovelace');
    await field('check').check();
    await field('titledSingleSelectEnum').selectOption('hero-3');
    expect(await problems.textContent()).toBe('');
    await shot('mcp-form');
    await card.getByRole('button', { name: 'Send' }).click();
    await card.locator('.outcome.applied').waitFor();
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('- Name: Ada Lovelace');
    expect(result.trace.steps[0]?.observation).toContain('- Favorite Integer: 7');
    // Who filled it in is recorded as for any answer.
    const answered = await eventsOfType(run, 'clarification_answered');
    expect(answered[0]?.by?.identity).toBe('alice');
  });

  it("a server's form declined in the inbox goes back to the server as declined", async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request', args: {} }] },
        { answer: 'Declined.' },
      ],
      'Offer the form, then decline it.',
    );
    await page.goto(`${inbox.url}/runs/${encodeURIComponent(run.workflowId)}`);
    const card = page.locator('article[data-kind="form"]');
    await card.getByRole('button', { name: 'Decline' }).click();
    await card.locator('.outcome.applied').waitFor();
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('User declined to provide the requested information.');
  });

  it("a server's link (URL mode) is shown whole, opens in a new tab, and Done tells the server", async () => {
    const args = { url: 'https://example.com/sign-in?step=1&who=alice', message: 'Sign in to the bank.' };
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'everything__trigger-url-elicitation', args }] }, { answer: 'Signed in.' }],
      'Sign in.',
    );
    await page.goto(`${inbox.url}/runs/${encodeURIComponent(run.workflowId)}`);
    const card = page.locator('article[data-kind="form"]');
    await card.waitFor();
    expect(await card.locator('h3').textContent()).toBe(
      'Link from everything (a call of everything__trigger-url-elicitation)',
    );
    const link = card.getByRole('link', { name: args.url });
    expect(await link.getAttribute('href')).toBe(args.url);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await card.getByRole('button', { name: 'Done' }).click();
    await card.locator('.outcome.applied').waitFor();
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('User completed the URL elicitation flow');
  });
});
