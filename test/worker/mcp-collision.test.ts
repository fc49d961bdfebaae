import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness';

/*
 * Red team, round 2, N4: two MCP tools whose names become the same once made valid (`wipe_all`, which asks first, and
 * `wipe.all`, read-only, are both `srv__wipe_all`): the workflow applied one's approval policy and the worker ran the
 * other, so a destructive call ran unapproved. A shared name is now offered for neither.
 */
const STDIO_SERVER = path.resolve(__dirname, '../support/mcp/stdio-server.ts');
const harness = useHarness({
  mcpServers: {
    srv: {
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SERVER],
      env: { MCP_TEST_EXTRA_TOOLS: 'wipe_all,wipe.all' },
      tools: { wipe_all: { confirm: 'always' } },
    },
  },
});

describe('two MCP tools whose names sanitise alike (N4)', () => {
  it('neither is offered or run: the call is answered as a tool the run does not have', async () => {
    const run = await harness.start(
      [
        { thought: 'The old data must go, so I wipe it.', toolCalls: [{ name: 'srv__wipe_all', args: {} }] },
        { answer: 'I could not wipe it.' },
      ],
      'wipe everything',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('I could not wipe it.');
    const [step] = result.trace.steps;
    expect(step?.isError).toBe(true);
    expect(step?.observation).toMatch(/srv__wipe_all/);
    expect(step?.observation).not.toMatch(/^wipe/); // neither tool answered
    const offered = harness.model.requests(run.modelName)[0]?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('srv__lookup');
    expect(offered).not.toContain('srv__wipe_all');
  }, 60_000);
});
