// The test MCP server over stdio, started by the worker as a child process (node --import tsx <this file>).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './test-server';

void createTestMcpServer('stdio').connect(new StdioServerTransport());
