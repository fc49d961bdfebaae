import type { ModelReply, ParsedToolCall } from '../../shared/protocol';
import { toolParametersSchema } from '../tools/catalog';
import type { AnyToolDefinition } from '../tools/define-tool';

/** The one required string property of a tool's parameters, if its schema has exactly that shape. */
function soleStringProperty(tool: AnyToolDefinition): string | undefined {
  const schema = toolParametersSchema(tool) as { properties?: Record<string, { type?: unknown }>; required?: unknown };
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  if (required.length !== 1) return undefined;
  const [name] = required as [string];
  return schema.properties?.[name]?.type === 'string' ? name : undefined;
}

/**
 * A call whose arguments are plain text (`calculator[2+2]`, `Action Input: capital of France`, or a JSON string) is
 * what small models write for a tool that takes one string: the text becomes that property. For any other tool the
 * call gets feedback naming the shape it takes. Done in the worker, which knows the schemas, so the recorded reply
 * already holds the real arguments that confirmation rules, hooks and running ahead look at.
 */
export function withPlainArguments(reply: ModelReply, tools: readonly AnyToolDefinition[]): ModelReply {
  if (reply.type !== 'tool_calls' || !reply.calls.some((call) => typeof call.args === 'string')) return reply;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const calls = reply.calls.map((call): ParsedToolCall => {
    const tool = byName.get(call.tool);
    if (typeof call.args !== 'string' || !tool) return call;
    const property = soleStringProperty(tool);
    if (property !== undefined) return { ...call, args: { [property]: call.args } };
    const { args: text, ...rest } = call;
    return {
      ...rest,
      parseError: `${tool.name} takes a JSON object of its parameters, not the plain text ${JSON.stringify(text.slice(0, 200))}`,
    };
  });
  return { ...reply, calls };
}
