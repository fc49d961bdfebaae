import { pathToFileURL } from 'node:url';
import type { AnyToolDefinition } from '../worker/tools/define-tool';

/**
 * The tools a user's worker defines, from a module that exports them (`export const tools = [...]` or a default
 * export): replay-check needs their names, descriptions, schemas and confirmation rules, never their handlers.
 */
export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const loaded = (await import(pathToFileURL(file).href)) as { tools?: unknown; default?: unknown };
  const tools = loaded.tools ?? loaded.default;
  if (!Array.isArray(tools))
    throw new Error(`${file} exports no tools: export \`tools\` (an array of defineTool(...))`);
  return tools as AnyToolDefinition[];
}
