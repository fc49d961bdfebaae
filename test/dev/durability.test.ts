import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDevServer } from '../../src/dev/dev-server';
import { freePort } from '../../src/testing/free-port';

/** Starts the embedded server on a fresh database file in a durability mode and lists the files SQLite made. */
async function filesAfterStart(durability: 'fast' | 'strict', dir: string): Promise<string[]> {
  const server = await startDevServer({
    dbFile: path.join(dir, 'temporal.db'),
    durability,
    port: await freePort(),
    uiPort: await freePort(),
  });
  try {
    return readdirSync(dir).sort();
  } finally {
    await server.stop();
  }
}

describe('the embedded server’s SQLite durability', () => {
  it('fast runs the file in WAL mode; strict switches the same file back to a rollback journal', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dra-durability-'));
    expect(await filesAfterStart('fast', dir)).toContain('temporal.db-wal');
    expect(await filesAfterStart('strict', dir)).not.toContain('temporal.db-wal');
  }, 60_000);
});
