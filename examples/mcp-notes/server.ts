// SAMPLE MCP SERVER: a notes store the agent reaches over MCP (stdio), built with the official SDK's server classes.
// The worker starts it (see mcp-servers.json); it keeps its notes in memory for as long as it runs.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes = new Map<string, string>([
  ['standup-2026-11-02', 'Standup: the billing export is late again; Dana owns the fix.'],
  ['standup-2026-11-09', 'Standup: billing export fixed. Next: retire the old invoice cron.'],
  ['draft-old-cron', 'DRAFT, obsolete: plan to keep the old invoice cron forever.'],
  ['retro-2026-11', 'Retro: fewer meetings, more written updates.'],
]);

const server = new McpServer({ name: 'notes', version: '1.0.0' });

server.registerTool(
  'search_notes',
  {
    description: 'Lists the IDs of notes whose text contains a word (case-insensitive).',
    inputSchema: { word: z.string().min(1) },
    annotations: { readOnlyHint: true },
  },
  ({ word }) => {
    const ids = [...notes].filter(([, text]) => text.toLowerCase().includes(word.toLowerCase())).map(([id]) => id);
    return { content: [{ type: 'text', text: ids.length > 0 ? ids.join('\n') : 'no notes match' }] };
  },
);

server.registerTool(
  'read_note',
  { description: 'Reads one note by ID.', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
  ({ id }) => {
    const text = notes.get(id);
    return text === undefined
      ? { content: [{ type: 'text', text: `no note ${id}` }], isError: true }
      : { content: [{ type: 'text', text }] };
  },
);

server.registerTool(
  'delete_note',
  {
    description: 'Deletes a note for good.',
    inputSchema: { id: z.string() },
    // Destructive: durable-react-agent makes a person approve each call unless configured otherwise.
    annotations: { destructiveHint: true },
  },
  ({ id }) => {
    const existed = notes.delete(id);
    return { content: [{ type: 'text', text: existed ? `deleted ${id}` : `no note ${id}` }], isError: !existed };
  },
);

void server.connect(new StdioServerTransport());
