import { chromium } from 'playwright-core';
import { Client, Connection } from '@temporalio/client';
import { startInbox } from '../src/inbox';
(async () => {
  const client = new Client({ connection: await Connection.connect({ address: 'localhost:1' , connectTimeout: 100}).catch(() => undefined as never) });
})().catch(()=>{});
(async () => {
  const fakeClient = { workflow: { list: async function* () {} } } as never;
  const inbox = await startInbox({ client: fakeClient, identities: { tokens: { 'alice-token-0123456789abcdef': { name: 'alice', roles: [] } } } });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--disable-background-networking'] });
  const page = await browser.newPage();
  page.on('console', (m) => console.log('console', m.text()));
  await page.goto(inbox.url);
  console.log(page.url());
  await page.getByLabel('Access token').fill('alice-token-0123456789abcdef');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForTimeout(1000);
  console.log(page.url(), (await page.content()).slice(0, 1500));
  await browser.close(); await inbox.close();
})();
