import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpToolSource } from '../../src/worker/mcp/tool-source';
import { startHttpMcpServer } from '../support/mcp/http-server';
import { extraTools } from '../support/mcp/test-server';

const STDIO_SERVER = path.resolve(__dirname, '../support/mcp/stdio-server.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the worker's MCP servers", () => {
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

  it("keeps a server's tool list for its refresh interval, then asks again", async () => {
    const http = await startHttpMcpServer();
    const source = new McpToolSource({ remote: { url: http.url, refresh: '300ms' } }, () => undefined);
    try {
      await source.refresh();
      expect(source.tools().map((tool) => tool.name)).not.toContain('remote__late_tool');
      extraTools.push('late_tool');
      await source.refresh(); // still fresh: not asked again
      expect(source.tools().map((tool) => tool.name)).not.toContain('remote__late_tool');
      await new Promise((resolve) => setTimeout(resolve, 350));
      await source.refresh();
      expect(source.tools().map((tool) => tool.name)).toContain('remote__late_tool');
    } finally {
      extraTools.length = 0;
      await source.close();
      await http.close();
    }
  });
});
