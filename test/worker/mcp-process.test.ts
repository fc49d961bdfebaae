import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpToolSource } from '../../src/worker/mcp/tool-source';

const STDIO_SERVER = path.resolve(__dirname, '../support/mcp/stdio-server.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the worker owns its stdio MCP servers' processes", () => {
  it('starts one at first use, not before, and stops it on close', async () => {
    const pidFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-mcp-')), 'pid');
    const source = new McpToolSource(
      {
        local: {
          command: process.execPath,
          args: ['--import', 'tsx', STDIO_SERVER],
          env: { MCP_TEST_PID_FILE: pidFile },
        },
      },
      () => undefined,
    );
    expect(existsSync(pidFile)).toBe(false); // nothing started yet
    await source.refresh();
    expect(source.tools().map((tool) => tool.name)).toContain('local__lookup');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await source.close();
    await expect.poll(() => alive(pid), { timeout: 5000 }).toBe(false);
  });
});
