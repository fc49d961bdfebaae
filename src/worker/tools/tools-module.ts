import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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

/**
 * Lets Node import a TypeScript tools module (`tools.ts`, as the README writes it), which Node 20 cannot by itself,
 * through the tsx found beside the module (a project that runs `npx tsx worker.ts` has it). Without tsx, one line says
 * what to do.
 */
async function loadTypeScript(file: string, what: string): Promise<void> {
  if (!/\.[cm]?tsx?$/.test(file)) return;
  const api = tsxApiBeside(file);
  if (api === undefined)
    throw new Error(
      `the ${what} ${file} is TypeScript, which Node cannot import by itself: install tsx beside it ` +
        '(npm install --save-dev tsx), or name the compiled .js',
    );
  const tsx = (await import(pathToFileURL(api).href)) as { register: () => unknown };
  tsx.register();
}

/**
 * The file of tsx's ES module API, resolved from the module's folder as Node resolves the module's own imports.
 * require() finds tsx's CommonJS API, whose register() points Node at a loader path that does not exist (tsx 4.x);
 * the ES module API, which works, is the file beside it.
 */
function tsxApiBeside(file: string): string | undefined {
  try {
    const api = createRequire(path.resolve(file))
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs');
    return existsSync(api) ? api : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Imports a module of the user's (`file`; TypeScript through tsx), or fails once {@link TOOLS_MODULE_LOAD_TIMEOUT_MS}
 * has passed without the import settling. `what` names it in errors: the tools module, or `dev`'s model script.
 */
export async function importUserModule(file: string, what = 'tools module'): Promise<Record<string, unknown>> {
  await loadTypeScript(file, what);
  let timer: NodeJS.Timeout | undefined;
  // The timer is also what keeps the process alive while a top-level await waits on nothing Node can see.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the ${what} ${file} did not finish loading within ${TOOLS_MODULE_LOAD_TIMEOUT_MS / 1000}s ` +
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
      `the ${what} ${file} called process.exit(${code ?? ''}) while loading: a ${what} only exports what it defines`,
    );
  };
  try {
    return await Promise.race([import(pathToFileURL(file).href) as Promise<Record<string, unknown>>, deadline]);
  } finally {
    process.exit = exit;
    clearTimeout(timer);
  }
}

/** Whether an export looks like one defineTool(...) (checked in full afterwards). */
function looksLikeTool(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'name' in value && 'handler' in value;
}

/**
 * The module's tools, each with the name its error would give: `tools` when it exports that, else a default array,
 * else every export that looks like a tool. Undefined when it exports none of these.
 */
function exportedTools(loaded: Record<string, unknown>): Array<[string, unknown]> | undefined {
  const list = (name: string, tools: unknown[]) =>
    tools.map((tool, index): [string, unknown] => [`${name}[${index}]`, tool]);
  if (Array.isArray(loaded.tools)) return list('tools', loaded.tools);
  if (loaded.tools !== undefined && loaded.tools !== null) return undefined;
  if (Array.isArray(loaded.default)) return list('default', loaded.default);
  const named = Object.entries(loaded).filter(([, value]) => looksLikeTool(value));
  return named.length > 0 ? named : undefined;
}

/**
 * The tools a user defines, from a module that exports them (`export const tools = [...]`, a default export, or each
 * tool under a name of its own, as the README's `tools.ts` does): the `worker` command runs them (`--tools-module`,
 * WORKER_TOOLS_MODULE); replay-check and eval need only their names, descriptions, schemas and confirmation rules.
 * Importing runs the module's top-level code: it is trusted code. Every entry is checked here, naming it, so a bad one
 * stops the command at its start rather than failing runs or calls.
 */
export async function loadToolsModule(file: string): Promise<AnyToolDefinition[]> {
  const listed = exportedTools(await importUserModule(file));
  if (!listed)
    throw new Error(
      `${file} exports no tools: export \`tools\` (an array of defineTool(...)), or each defineTool(...) by name`,
    );
  return listed.map(([exported, tool]) => {
    try {
      return checkTool(tool);
    } catch (error) {
      throw new TypeError(`${exported}: ${(error as Error).message}`, { cause: error });
    }
  });
}
