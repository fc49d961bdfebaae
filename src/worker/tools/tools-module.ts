import { pathToFileURL } from 'node:url';
import type { AnyToolDefinition } from './define-tool';
import { checkTool } from './registry';

/**
 * The tools a user defines, from a module that exports them (`export const tools = [...]` or a default export): the
 * `worker` command runs them (`--tools-module`, WORKER_TOOLS_MODULE); replay-check and eval need only their names,
 * descriptions, schemas and confirmation rules. Importing runs the module's top-level code: it is trusted code. Every
 * entry is checked here, naming it, so a bad one stops the command at its start rather than failing runs or calls.
 */
export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const loaded = (await import(pathToFileURL(file).href)) as { tools?: unknown; default?: unknown };
  const [exported, tools] =
    loaded.tools === undefined || loaded.tools === null ? ['default', loaded.default] : ['tools', loaded.tools];
  if (!Array.isArray(tools))
    throw new Error(`${file} exports no tools: export \`tools\` (an array of defineTool(...))`);
  return tools.map((tool: unknown, index) => {
    try {
      return checkTool(tool);
    } catch (error) {
      throw new TypeError(`${exported}[${index}]: ${(error as Error).message}`, { cause: error });
    }
  });
}
