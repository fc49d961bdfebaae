// The test MCP server over stdio, started by the worker as a child process (node --import tsx <this file>).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './test-server';

import { writeFileSync } from 'node:fs';

// Tests that check the worker stops its servers find this process by the pid it leaves here.
if (process.env.MCP_TEST_PID_FILE) writeFileSync(process.env.MCP_TEST_PID_FILE, String(process.pid));
void createTestMcpServer('stdio').connect(new StdioServerTransport());
