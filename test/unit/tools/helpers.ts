import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AnyToolDefinition, ToolContext, ToolOutput } from '../../../src/worker/tools/define-tool';

/** Runs a tool the way the tool activity does: arguments parsed through the schema, then the handler. */
export async function runTool(tool: AnyToolDefinition, args: unknown): Promise<ToolOutput> {
  const context: ToolContext = { idempotencyKey: 'test', signal: new AbortController().signal };
  return tool.handler(tool.schema.parse(args), context);
}

/** Creates a fresh temp folder holding the given files (paths relative to it, '/' separated). */
export async function makeFixture(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'dra-tools-'));
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, ...relative.split('/'));
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
  return root;
}
