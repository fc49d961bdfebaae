import { describe, expect, it } from 'vitest';
import { MCP_LIST_TIMEOUT_MS } from '../../src/worker/mcp/tool-source';
import { useHarness } from '../support/harness';

/*
 * Red team, round 2, N7: one MCP server that never answers (a process that reads nothing) used to hold every run's
 * start on its worker for the tool lookup's whole timeout and retries, then fail it, even runs that use no MCP tool.
 */
const harness = useHarness({
  mcpServers: { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
});

describe('an MCP server that never answers', () => {
  it('costs nothing to a run that names only other tools: its start never waits on that server', async () => {
    const script = [{ answer: '4' }];
    const started = Date.now();
    const run = await harness.start(script, 'What is 2+2?', { tools: ['calculator'] });
    expect((await run.result()).finalAnswer).toBe('4');
    expect(Date.now() - started).toBeLessThan(MCP_LIST_TIMEOUT_MS);
  }, 60_000);

  it('costs a run that takes every tool a few seconds once, then nothing', async () => {
    const script = [
      {
        thought: 'The sum needs the calculator to be exact, so I call it.',
        toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }],
      },
      { answer: '4' },
    ];
    const first = Date.now();
    const run = await harness.start(script, 'What is 2+2?');
    expect((await run.result()).finalAnswer).toBe('4');
    expect(Date.now() - first).toBeLessThan(MCP_LIST_TIMEOUT_MS + 10_000);

    // The server is left alone for a while: the next run does not wait on it again.
    const second = Date.now();
    const again = await harness.start(script, 'What is 2+2?');
    expect((await again.result()).finalAnswer).toBe('4');
    expect(Date.now() - second).toBeLessThan(MCP_LIST_TIMEOUT_MS);
  }, 60_000);
});
