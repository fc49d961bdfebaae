import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevServerBusyError, lockDatabase } from '../../src/dev/db-lock';
import { freePort, startDevServer } from '../../src/testing';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'dra-db-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('one dev server per SQLite file', () => {
  it('a second server on the same database file is refused with one line; the first keeps running', async () => {
    const dbFile = path.join(dir, 'temporal.db');
    const first = await startDevServer({ dbFile, port: await freePort(), uiPort: await freePort() });
    try {
      const second = startDevServer({ dbFile, port: await freePort(), uiPort: await freePort() });
      await expect(second).rejects.toBeInstanceOf(DevServerBusyError);
      await expect(second).rejects.toThrow(
        `${dbFile} is in use by another Temporal dev server (process ${process.pid})`,
      );
    } finally {
      await first.stop();
    }
    // Stopping releases the file: the next server gets it.
    const next = await startDevServer({ dbFile, port: await freePort(), uiPort: await freePort() });
    await next.stop();
  }, 60_000);

  it('takes over a lock whose process is gone', async () => {
    const dbFile = path.join(dir, 'stale.db');
    await writeFile(`${dbFile}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname() }));
    const release = await lockDatabase(dbFile);
    expect(JSON.parse(await readFile(`${dbFile}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
  });
});
