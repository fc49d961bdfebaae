import path from 'node:path';
import type { AgentConfig } from 'durable-react-agent';
import type { McpServersConfig } from 'durable-react-agent/worker';

/** The task: find an obsolete draft among the notes and delete it (which a person must approve). */
export const MCP_NOTES_QUERY = 'Find the obsolete draft about the invoice cron in my notes and delete it.';

/** The worker's MCP servers: the sample notes server, started over stdio with the repository's tsx. */
export const MCP_NOTES_SERVERS: McpServersConfig = {
  notes: {
    command: process.execPath,
    args: ['--import', 'tsx', path.join(__dirname, 'server.ts')],
  },
};

/** Only the notes tools; their names are `<server>__<tool>`. */
export const MCP_NOTES_CONFIG: AgentConfig = {
  tools: ['notes__search_notes', 'notes__read_note', 'notes__delete_note'],
  limits: { maxIterations: 8 },
};
