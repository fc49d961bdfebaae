import type { AnyToolDefinition } from './define-tool';
import { DurableAgentError } from '../../shared/errors';

/** Raised when two tools claim one name: the second would silently shadow the first. */
export class DuplicateToolError extends DurableAgentError {
  override readonly name = 'DuplicateToolError';
}

/** The tools a worker can run, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyToolDefinition>();

  /** Builds a registry holding `tools`. */
  constructor(tools: Iterable<AnyToolDefinition> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a name already taken is refused. */
  register(tool: AnyToolDefinition): this {
    if (this.tools.has(tool.name)) {
      throw new DuplicateToolError(`A tool named "${tool.name}" is already registered`);
    }
    this.tools.set(tool.name, tool);
    return this;
  }

  /** The tool with this name, if any. */
  get(name: string): AnyToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Whether a tool with this name is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** All tools in registration order, or those of one category. */
  list(category?: string): AnyToolDefinition[] {
    const all = [...this.tools.values()];
    return category === undefined ? all : all.filter((tool) => tool.category === category);
  }

  /** The tools a run asked for (all when `names` is undefined), and the names that match nothing. */
  resolve(names?: readonly string[]): { tools: AnyToolDefinition[]; unknown: string[] } {
    if (names === undefined) return { tools: this.list(), unknown: [] };
    const tools: AnyToolDefinition[] = [];
    const unknown: string[] = [];
    for (const name of names) {
      const tool = this.tools.get(name);
      if (tool) tools.push(tool);
      else unknown.push(name);
    }
    return { tools, unknown };
  }
}
