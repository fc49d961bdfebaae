import { validateAgentConfig, type AgentConfig } from '../../shared/config';
import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../../shared/context-windows';
import type { ToolCatalog } from '../../shared/tool-protocol';

/**
 * What a run starts from: its checked config with every default, its tools, and the context window assumed for the
 * model this worker will call when the config sets none; or why the config is refused.
 */
export type PreparedRun =
  | { ok: true; config: AgentConfig; catalog: ToolCatalog; assumedContextWindow?: number }
  | { ok: false; message: string };

/**
 * Creates the `prepareRun` activity, a new run's first step: its config is checked here, on the worker, where zod
 * lives (the workflow bundle carries no zod: issue 17), and the run's tools are looked up in the same call.
 */
export function createPrepareRun(
  listTools: (names?: string[]) => Promise<ToolCatalog>,
  defaultModel: string,
): (config: unknown) => Promise<PreparedRun> {
  return async function prepareRun(config: unknown): Promise<PreparedRun> {
    const checked = validateAgentConfig(config);
    if (!checked.ok) return checked;
    const catalog = await listTools(checked.config.tools);
    if (checked.config.contextWindow !== undefined) return { ok: true, config: checked.config, catalog };
    // Only the worker knows the model a run without `model` calls (its OPENAI_MODEL). Decided here, the assumption is
    // recorded with the run, so a later change to the table of known windows cannot change what a replay does.
    const model = checked.config.model ?? defaultModel;
    const assumedContextWindow = knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW;
    return { ok: true, config: checked.config, catalog, assumedContextWindow };
  };
}
