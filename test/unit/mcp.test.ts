import { describe, expect, it } from 'vitest';
import { McpConfigError, parseMcpServers } from '../../src/worker/mcp/config';
import { McpToolError, toToolOutput } from '../../src/worker/mcp/results';
import { confirmFromAnnotations, mcpToolName } from '../../src/worker/mcp/tool-source';

describe('MCP configuration and mapping', () => {
  it('refuses a bad server config with every problem on one line', () => {
    expect(() => parseMcpServers({ 'bad name': { command: 'x' } })).toThrow(McpConfigError);
    expect(() => parseMcpServers({ gh: { url: 'not a url' } })).toThrow(/gh/);
    expect(() => parseMcpServers({ gh: { command: 'x', confirm: 'sometimes' } })).toThrow(/gh\.confirm/);
    expect(() => parseMcpServers({ gh: { command: 'x', url: 'http://127.0.0.1/mcp' } })).toThrow(
      'MCP servers: gh: give either command (a stdio server) or url (streamable HTTP)',
    );
    expect(parseMcpServers({ gh: { command: 'x', tools: { merge: { confirm: 'always', timeout: '2m' } } } })).toEqual({
      gh: { command: 'x', tools: { merge: { confirm: 'always', timeout: '2m' } } },
    });
  });

  it('names tools per server in a form every provider accepts', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github__create_issue');
    expect(mcpToolName('fs', 'read.file/v2')).toBe('fs__read_file_v2');
  });

  it('asks before destructive or unannotated tools; read-only and non-destructive ones run', () => {
    expect(confirmFromAnnotations(undefined)).toBe('always');
    expect(confirmFromAnnotations({ destructiveHint: true })).toBe('always');
    expect(confirmFromAnnotations({ readOnlyHint: true })).toBe('never');
    expect(confirmFromAnnotations({ destructiveHint: false })).toBe('never');
  });

  it('maps results: text, structured content, summarised media, and errors', () => {
    expect(
      toToolOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(toToolOutput({ content: [], structuredContent: { id: 1 } })).toEqual({ id: 1 });
    expect(
      toToolOutput({
        content: [{ type: 'resource', resource: { uri: 'file:///x.pdf', mimeType: 'application/pdf', blob: 'AAAA' } }],
      }),
    ).toBe('[resource file:///x.pdf: application/pdf, 3 bytes, not shown]');
    expect(() => toToolOutput({ content: [{ type: 'text', text: 'nope' }], isError: true })).toThrow(McpToolError);
  });
});
