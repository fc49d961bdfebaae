import { pathToFileURL } from 'node:url';
import type { AnyToolDefinition } from './define-tool';

/**
 * The tools a user defines, from a module that exports them (`export const tools = [...]` or a default export): the
 * `worker` command runs them (`--tools-module`, WORKER_TOOLS_MODULE); replay-check and eval need only their names,
 * descriptions, schemas and confirmation rules. Importing runs the module's top-level code: it is trusted code.
 */
export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const loaded = (await import(pathToFileURL(file).href)) as { tools?: unknown; default?: unknown };
  const tools = loaded.tools ?? loaded.default;
  if (!Array.isArray(tools))
    throw new Error(`${file} exports no tools: export \`tools\` (an array of defineTool(...))`);
  return tools as AnyToolDefinition[];
}
