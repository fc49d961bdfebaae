import { z } from 'zod';
import { DurableAgentError } from '../../shared/errors';
import { compileJsonSchema } from '../../shared/json-schema';
import type { RemoteToolPlacement } from '../../shared/tool-protocol';
import { formatZodIssues } from '../../shared/validation';
import { confirmSchema, toolDuration } from '../mcp/config';
import { ToolInputError, type AnyToolDefinition } from './define-tool';

/** A worker's remote tools declaration is wrong: the worker does not start, and the message names every problem. */
export class RemoteToolConfigError extends DurableAgentError {
  override readonly name = 'RemoteToolConfigError';
}

/**
 * How long a remote tool's call waits for a worker of its task queue to pick it up, unless it says otherwise. Past
 * it the model hears that nobody polls the queue: a run never waits silently on a worker that is not there.
 */
export const DEFAULT_REMOTE_SCHEDULE_TO_START = '60s';

/**
 * One tool that runs in another worker (any Temporal SDK): the workflow schedules activity `activityType` on
 * `taskQueue` with `{ tool, args, callId, idempotencyKey }`, and its result is the observation.
 */
export const remoteToolSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, "1-64 letters, digits, '_' or '-', starting with a letter (model APIs)"),
  description: z.string().trim().min(1, 'models choose tools by their description'),
  /** JSON Schema of the arguments: shown to the model, and checked by this worker before the call is scheduled. */
  parameters: z.record(z.string(), z.unknown()),
  taskQueue: z.string().min(1),
  activityType: z.string().min(1),
  /** Start-to-close timeout of one attempt. */
  timeout: toolDuration.optional(),
  /** As a defineTool's `retry`: attempts in all (1, the default, is no retry), first delay, its multiplier. */
  retry: z
    .strictObject({
      maximumAttempts: z.number().int().min(1).max(100),
      initialInterval: toolDuration.optional(),
      backoffCoefficient: z.number().min(1).optional(),
    })
    .optional(),
  confirm: confirmSchema.optional(),
  readOnly: z.boolean().optional(),
  /** How long a call waits for a worker to pick it up before it is an observation saying nobody polls the queue. */
  scheduleToStartTimeout: toolDuration.optional(),
});

/** One remote tool's declaration (the plugin's `remoteTools`, the WORKER_REMOTE_TOOLS file's entries). */
export type RemoteToolConfig = z.input<typeof remoteToolSchema>;

/** Remote tools, by their unique names. */
export const remoteToolsSchema = z.array(remoteToolSchema).superRefine((tools, context) => {
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    if (seen.has(tool.name)) {
      context.addIssue({ code: 'custom', path: [index, 'name'], message: `"${tool.name}" is declared twice` });
    }
    seen.add(tool.name);
  });
});

/**
 * Where declarations read from a file came from (`WORKER_REMOTE_TOOLS (file)`), for the problems only the worker can
 * see, once it knows its other tools: the plugin receives the bare array, and its user set a file, not `remoteTools`.
 */
const origins = new WeakMap<readonly RemoteToolConfig[], string>();

/** Tags declarations with where they were read from (see {@link remoteToolsOrigin}); returns them. */
export function withRemoteToolsOrigin(tools: RemoteToolConfig[], origin: string): RemoteToolConfig[] {
  origins.set(tools, origin);
  return tools;
}

/** Where these declarations were read from, else `fallback` (the plugin option's name). */
export function remoteToolsOrigin(tools: readonly RemoteToolConfig[] | undefined, fallback: string): string {
  return (tools && origins.get(tools)) ?? fallback;
}

/**
 * Checks remote tools' declarations and builds their definitions: the JSON Schema compiled to the validator the
 * worker checks arguments with (one it cannot compile, or a pattern it cannot run in linear time, is refused here
 * rather than let the model's arguments through unchecked). One line naming every problem when something is wrong.
 */
export function parseRemoteTools(input: unknown, origin = 'remote tools'): AnyToolDefinition[] {
  const parsed = remoteToolsSchema.safeParse(input);
  if (!parsed.success) throw new RemoteToolConfigError(`${origin}: ${formatZodIssues(parsed.error.issues)}`);
  const problems: string[] = [];
  const tools = parsed.data.flatMap((declared): AnyToolDefinition[] => {
    const schema = compileJsonSchema(declared.parameters);
    if (typeof schema === 'string') {
      problems.push(`${declared.name}: parameters is ${schema}`);
      return [];
    }
    const remote: RemoteToolPlacement = {
      taskQueue: declared.taskQueue,
      activityType: declared.activityType,
      scheduleToStartTimeout: declared.scheduleToStartTimeout ?? DEFAULT_REMOTE_SCHEDULE_TO_START,
    };
    return [
      {
        name: declared.name,
        description: declared.description,
        category: 'remote',
        schema,
        parameters: declared.parameters,
        // None declared: the catalog gives it every tool's default (DEFAULT_TOOL_TIMEOUT).
        ...(declared.timeout !== undefined ? { timeout: declared.timeout } : {}),
        ...(declared.retry ? { retry: declared.retry } : {}),
        ...(declared.confirm !== undefined ? { confirm: declared.confirm } : {}),
        ...(declared.readOnly ? { readOnly: true } : {}),
        // Never a local activity of this worker, so never run ahead inside a model call either.
        local: false,
        remote,
        // The workflow schedules the activity on the tool's own queue: it never reaches this worker's runTool.
        handler: () => {
          throw new ToolInputError(
            `${declared.name} runs in a worker of task queue "${remote.taskQueue}", not in this worker`,
          );
        },
      },
    ];
  });
  if (problems.length > 0) throw new RemoteToolConfigError(`${origin}: ${problems.join('; ')}`);
  return tools;
}
