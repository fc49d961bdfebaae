import { pathToFileURL } from 'node:url';
import type { AnyToolDefinition } from './define-tool';
import { checkTool } from './registry';

/**
 * How long a tools module may take to load. Importing local code takes well under a second; 10 s leaves room for a
 * top-level await that fetches a secret or opens a client over the network, and is short enough that a module waiting
 * on something that never comes stops the worker while someone is still watching it start (a restart policy then
 * tries again). Without a deadline Node exits 0, silently, as soon as nothing but the import is pending.
 */
export const TOOLS_MODULE_LOAD_TIMEOUT_MS = 10_000;

/** Imports `file`, or fails once {@link TOOLS_MODULE_LOAD_TIMEOUT_MS} has passed without the import settling. */
async function importWithin(file: string): Promise<{ tools?: unknown; default?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  // The timer is also what keeps the process alive while a top-level await waits on nothing Node can see.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the tools module ${file} did not finish loading within ${TOOLS_MODULE_LOAD_TIMEOUT_MS / 1000}s ` +
              '(a top-level await that never settles?)',
          ),
        ),
      TOOLS_MODULE_LOAD_TIMEOUT_MS,
    );
  });
  // A module that ends the process while loading would leave with its status (often 0) and no word: a supervisor
  // reads that as a clean stop. Its call throws instead, and the import fails with a line saying so.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, never called from here
  const exit = process.exit;
  process.exit = (code?: number | string | null): never => {
    throw new Error(
      `the tools module ${file} called process.exit(${code ?? ''}) while loading: a tools module only exports tools`,
    );
  };
  try {
    return await Promise.race([
      import(pathToFileURL(file).href) as Promise<{ tools?: unknown; default?: unknown }>,
      deadline,
    ]);
  } finally {
    process.exit = exit;
    clearTimeout(timer);
  }
}

/**
 * The tools a user defines, from a module that exports them (`export const tools = [...]` or a default export): the
 * `worker` command runs them (`--tools-module`, WORKER_TOOLS_MODULE); replay-check and eval need only their names,
 * descriptions, schemas and confirmation rules. Importing runs the module's top-level code: it is trusted code. Every
 * entry is checked here, naming it, so a bad one stops the command at its start rather than failing runs or calls.
 */
export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const loaded = await importWithin(file);
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
