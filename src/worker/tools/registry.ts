import { checkToolDefinition, DEFAULT_TOOL_CATEGORY, type AnyToolDefinition } from './define-tool';
import { DurableAgentError, errorMessage } from '../../shared/errors';
import { withLinearConfirmation } from './confirmation-patterns';
import { toolParametersSchema } from './catalog';

/** Raised when two tools claim one name: the second would silently shadow the first. */
export class DuplicateToolError extends DurableAgentError {
  override readonly name = 'DuplicateToolError';
}

/**
 * The tool as a registry keeps it, or a TypeError naming what is wrong with it: {@link checkToolDefinition}, a zod
 * schema this worker can turn into the JSON Schema every model call shows (a schema of another zod major cannot be),
 * and confirmation patterns in linear-time form. Plain objects skip defineTool, so every tool a worker takes passes here.
 */
export function checkTool(tool: unknown): AnyToolDefinition {
  checkToolDefinition(tool);
  try {
    toolParametersSchema(tool); // cached: the first model call pays nothing more
  } catch (error) {
    const reason = errorMessage(error).split('\n')[0];
    throw new TypeError(`Tool "${tool.name}" has a schema that gives no JSON Schema for the model: ${reason}`, {
      cause: error,
    });
  }
  return withLinearConfirmation(tool);
}

/** Tools that come and go at run time (an MCP server's): listed from a cache the activities refresh. */
export interface DynamicToolSource {
  /** The tools known now. */
  tools(): readonly AnyToolDefinition[];
  /**
   * Fetches the lists again where they are older than their refresh interval; with `names`, only where one of those
   * tools could come from (a run that names its tools never waits on a source it does not use).
   */
  refresh(names?: readonly string[]): Promise<void>;
}

/** The tools a worker can run, by name: its own, then those of attached sources (an own tool wins a name). */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyToolDefinition>();
  private readonly sources: DynamicToolSource[] = [];

  /** Builds a registry holding `tools`. */
  constructor(tools: Iterable<AnyToolDefinition> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a name already taken is refused, and so is a definition {@link checkTool} refuses. */
  register(tool: AnyToolDefinition): this {
    const checked = checkTool(tool);
    if (this.tools.has(checked.name)) {
      throw new DuplicateToolError(`A tool named "${checked.name}" is already registered`);
    }
    this.tools.set(checked.name, checked);
    return this;
  }

  /** Adds a source of tools that change at run time, e.g. {@link McpToolSource}. */
  attach(source: DynamicToolSource): this {
    this.sources.push(source);
    return this;
  }

  /** Removes an attached source: a worker that stops closes its own, and a registry it shared outlives it. */
  detach(source: DynamicToolSource): void {
    const index = this.sources.indexOf(source);
    if (index >= 0) this.sources.splice(index, 1);
  }

  /** Refreshes the attached sources (each keeps its cache until its interval passes), for `names` if given. */
  async refresh(names?: readonly string[]): Promise<void> {
    const wanted = names?.filter((name) => !this.tools.has(name));
    if (wanted?.length === 0) return; // the worker's own tools: no source to ask
    await Promise.all(this.sources.map((source) => source.refresh(wanted)));
  }

  /** The tool with this name, if any. */
  get(name: string): AnyToolDefinition | undefined {
    return this.tools.get(name) ?? this.dynamic().find((tool) => tool.name === name);
  }

  /** The tool with this name, asking the sources (MCP servers) first when this worker has not seen it yet. */
  async lookup(name: string): Promise<AnyToolDefinition | undefined> {
    if (!this.has(name)) await this.refresh([name]);
    return this.get(name);
  }

  /** Whether a tool with this name is registered. */
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** The sources' tools a name has not claimed yet: one tool per name, so listing and running agree on which. */
  private dynamic(): AnyToolDefinition[] {
    const seen = new Set(this.tools.keys());
    const tools: AnyToolDefinition[] = [];
    for (const tool of this.sources.flatMap((source) => source.tools())) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push(tool);
    }
    return tools;
  }

  /** All tools in registration order (then the attached sources'), or those of one category. */
  list(category?: string): AnyToolDefinition[] {
    const all = [...this.tools.values(), ...this.dynamic()];
    return category === undefined ? all : all.filter((tool) => (tool.category ?? DEFAULT_TOOL_CATEGORY) === category);
  }

  /** The tools a run asked for (all when `names` is undefined), and the names that match nothing. */
  resolve(names?: readonly string[]): { tools: AnyToolDefinition[]; unknown: string[] } {
    if (names === undefined) return { tools: this.list(), unknown: [] };
    const tools: AnyToolDefinition[] = [];
    const unknown: string[] = [];
    for (const name of names) {
      const tool = this.get(name);
      if (tool) tools.push(tool);
      else unknown.push(name);
    }
    return { tools, unknown };
  }
}
