import { validateAgentConfig, type AgentConfig } from '../../shared/config';
import type { ToolCatalog } from '../../shared/tool-protocol';

/** What a run starts from: its checked config with every default, and its tools; or why the config is refused. */
export type PreparedRun = { ok: true; config: AgentConfig; catalog: ToolCatalog } | { ok: false; message: string };

/**
 * Creates the `prepareRun` activity, a new run's first step: its config is checked here, on the worker, where zod
 * lives (the workflow bundle carries no zod: issue 17), and the run's tools are looked up in the same call.
 */
export function createPrepareRun(
  listTools: (names?: string[]) => Promise<ToolCatalog>,
): (config: unknown) => Promise<PreparedRun> {
  return async function prepareRun(config: unknown): Promise<PreparedRun> {
    const checked = validateAgentConfig(config);
    if (!checked.ok) return checked;
    return { ok: true, config: checked.config, catalog: await listTools(checked.config.tools) };
  };
}
