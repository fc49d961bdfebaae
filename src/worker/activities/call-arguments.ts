import type { ModelReply, ParsedToolCall } from '../../shared/protocol';
import { toolParametersSchema } from '../tools/catalog';
import type { AnyToolDefinition } from '../tools/define-tool';

/**
 * Deepest nesting of tool-call arguments the loop takes. The reply travels as an activity result, and serialising
 * thousands of levels overflows the stack: the activity failed without a word and the paid call was made again.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** How deeply a JSON text nests its objects and arrays, counted without recursion (strings skipped). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if (char === '}' || char === ']') depth = Math.max(0, depth - 1);
  }
  return deepest;
}

/** The one required string property of a tool's parameters, if its schema has exactly that shape. */
function soleStringProperty(tool: AnyToolDefinition): string | undefined {
  const schema = toolParametersSchema(tool) as { properties?: Record<string, { type?: unknown }>; required?: unknown };
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  if (required.length !== 1) return undefined;
  const [name] = required as [string];
  return schema.properties?.[name]?.type === 'string' ? name : undefined;
}

/** A call with its parsed arguments dropped and the reason the model will read instead. */
function refused(call: ParsedToolCall, parseError: string): ParsedToolCall {
  const rest: ParsedToolCall = { ...call };
  delete rest.args;
  return { ...rest, parseError };
}

/**
 * Settles what the reply readers could not, knowing the tools' schemas: arguments nested past
 * {@link MAX_ARGUMENT_DEPTH} are refused as feedback; plain text (`calculator[2+2]`, `Action Input: capital of
 * France`, or a JSON string) is what small models write for a tool that takes one string, so it becomes that property,
 * and any other tool's call gets feedback naming the shape it takes. Done in the worker, so the recorded reply already
 * holds the real arguments that confirmation rules, hooks and running ahead look at.
 */
export function settleArguments(reply: ModelReply, tools: readonly AnyToolDefinition[]): ModelReply {
  if (reply.type !== 'tool_calls') return reply;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const calls = reply.calls.map((call): ParsedToolCall => {
    const depth = call.args === undefined ? 0 : nestingDepth(call.argumentsText);
    if (depth > MAX_ARGUMENT_DEPTH) {
      return refused(call, `the arguments nest ${depth} levels deep; at most ${MAX_ARGUMENT_DEPTH} are read`);
    }
    const tool = byName.get(call.tool);
    if (typeof call.args !== 'string' || !tool) return call;
    const property = soleStringProperty(tool);
    if (property !== undefined) return { ...call, args: { [property]: call.args } };
    return refused(
      call,
      `${tool.name} takes a JSON object of its parameters, not the plain text ${JSON.stringify(call.args.slice(0, 200))}`,
    );
  });
  return { ...reply, calls };
}
