import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../worker/tools/define-tool';
import { ToolRegistry } from '../worker/tools/registry';
import type { Recording } from './recording';

/**
 * The registry a replay offers: the worker's tools, plus a stand-in for each tool the recording used that this
 * worker does not define (e.g. a user's own, with no --tools-module), so the run is not refused at its start. A
 * stand-in has no schema and no confirmation rule; the recording answers its calls.
 */
export function stubTools(registry: ToolRegistry, recording: Recording): { registry: ToolRegistry; notes: string[] } {
  const configured = recording.input.config?.tools;
  const names = new Set([
    ...recording.toolCalls.map((call) => call.tool),
    ...(Array.isArray(configured) ? configured.filter((name): name is string => typeof name === 'string') : []),
  ]);
  const missing = [...names].filter((name) => !registry.has(name));
  // A remote tool's activity runs in another worker, for real: in a replay it is this worker's tool (same name,
  // description and schema, so the same prompt), whose calls the recording answers through the stub runTool.
  const hasRemote = registry.list().some((tool) => tool.remote !== undefined);
  if (missing.length === 0 && !hasRemote) return { registry, notes: [] };
  const stubs: AnyToolDefinition[] = missing.map((name) =>
    defineTool({
      name,
      description: `${name} (not defined in this worker: replay-check serves its recorded results)`,
      category: 'replay',
      schema: z.record(z.string(), z.unknown()),
      handler: () => '',
    }),
  );
  const here = registry.list().map((tool): AnyToolDefinition => {
    if (tool.remote === undefined) return tool;
    const copy = { ...tool };
    delete copy.remote;
    return copy;
  });
  return {
    registry: new ToolRegistry([...here, ...stubs]),
    notes:
      missing.length === 0
        ? []
        : [`not defined here, served from the recording: ${missing.join(', ')} (give --tools-module to define them)`],
  };
}
