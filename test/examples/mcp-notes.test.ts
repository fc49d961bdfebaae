import { describe, expect, it } from 'vitest';
import { MCP_NOTES_CONFIG, MCP_NOTES_QUERY, MCP_NOTES_SERVERS } from '../../examples/mcp-notes/agent';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness({ mcpServers: MCP_NOTES_SERVERS });

describe('example: an agent using an MCP server (examples/mcp-notes)', () => {
  it('searches and reads over MCP without asking, and deletes only after a person approves', async () => {
    const run = await harness.start(
      [
        {
          thought: 'The draft mentions the invoice cron, so I search the notes for "cron".',
          toolCalls: [{ name: 'notes__search_notes', args: { word: 'cron' } }],
        },
        {
          thought: 'Two notes mention the cron; the draft one is the candidate, so I read it first.',
          toolCalls: [{ name: 'notes__read_note', args: { id: 'draft-old-cron' } }],
        },
        {
          thought: 'It is marked obsolete and is the draft the user means, so I delete it.',
          toolCalls: [{ name: 'notes__delete_note', args: { id: 'draft-old-cron' } }],
        },
        { answer: 'Deleted the obsolete draft "draft-old-cron".' },
      ],
      MCP_NOTES_QUERY,
      MCP_NOTES_CONFIG,
    );
    const pending = await waitForPending(harness, run.workflowId);
    expect(pending.approvals).toMatchObject([{ tool: 'notes__delete_note', args: { id: 'draft-old-cron' } }]);
    await harness.agents.handle(run.workflowId).approve();
    const result = await run.result();
    expect(result.trace.steps.map((step) => step.observation)).toEqual([
      'standup-2026-11-09\ndraft-old-cron',
      'DRAFT, obsolete: plan to keep the old invoice cron forever.',
      'deleted draft-old-cron',
      null,
    ]);
    expect(result.trace.steps.map((step) => step.decision?.kind)).toEqual([undefined, undefined, 'approve', undefined]);
  });
});
