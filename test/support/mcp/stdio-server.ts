// The test MCP server over stdio, started by the worker as a child process (node --import tsx <this file>).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer, extraTools } from './test-server';

import { writeFileSync } from 'node:fs';

// Tests that check the worker stops its servers find this process by the pid it leaves here.
if (process.env.MCP_TEST_PID_FILE) writeFileSync(process.env.MCP_TEST_PID_FILE, String(process.pid));
// More tools by name, for tests that need odd names (MCP_TEST_EXTRA_TOOLS=a,b).
extraTools.push(...(process.env.MCP_TEST_EXTRA_TOOLS?.split(',').filter(Boolean) ?? []));
void createTestMcpServer('stdio').connect(new StdioServerTransport());
