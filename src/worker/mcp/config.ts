import { z } from 'zod';
import type { ConfirmationPolicy, ConfirmationRule } from '../../shared/approvals';
import { DurableAgentError } from '../../shared/errors';
import { formatZodIssues } from '../../shared/validation';
import { linearConfirmation } from '../tools/confirmation-patterns';

/** A worker's MCP configuration is wrong: the worker does not start, and the message names every problem. */
export class McpConfigError extends DurableAgentError {
  override readonly name = 'McpConfigError';
}

const ruleSchema: z.ZodType<ConfirmationRule> = z.lazy(() =>
  z.union([
    z.strictObject({ when: z.literal('path_outside'), arg: z.string().min(1), folder: z.string() }),
    z.strictObject({ when: z.literal('greater_than'), arg: z.string().min(1), value: z.number() }),
    z.strictObject({
      when: z.literal('equals'),
      arg: z.string().min(1),
      value: z.union([z.string(), z.number(), z.boolean()]),
    }),
    z.strictObject({
      when: z.literal('matches'),
      arg: z.string().min(1),
      pattern: z.string(),
      flags: z.string().optional(),
    }),
    z.strictObject({ anyOf: z.array(ruleSchema) }),
    z.strictObject({ allOf: z.array(ruleSchema) }),
  ]),
);
/**
 * A confirmation policy in a worker's config file (MCP servers, remote tools). The workflow runs its patterns on the
 * model's arguments: one it cannot run in linear time stops the worker here.
 */
export const confirmSchema: z.ZodType<ConfirmationPolicy> = z
  .union([z.literal('always'), z.literal('never'), ruleSchema])
  .superRefine((policy, context) => {
    const checked = linearConfirmation(policy);
    if ('problem' in checked) context.addIssue({ code: 'custom', message: checked.problem });
  });
/** A tool's timeout as Temporal's activity options take it: `500ms`, `30s`, `5m`, `1h` (remote tools use it too). */
export const toolDuration = z.string().regex(/^\d+(ms|s|m|h)$/, 'a duration like "30s", "5m" or "500ms"');

/** Settings of one of a server's tools. */
const toolSettingsSchema = z.strictObject({
  confirm: confirmSchema.optional(),
  timeout: toolDuration.optional(),
  /** Attempts in all (1 = no retry, the default, as for built-in tools: a retried side effect is worse than an error). */
  maximumAttempts: z.number().int().min(1).max(20).optional(),
});

const common = {
  /** The default policy of the server's tools; without it their annotations decide (see README). */
  confirm: confirmSchema.optional(),
  /** Only these tools (their MCP names) are offered; `deny` takes tools away. */
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
  tools: z.record(z.string().min(1), toolSettingsSchema).optional(),
  /** Per-call timeout of the server's tools (default 60s). */
  timeout: toolDuration.optional(),
  /** How long the tool list is cached before it is asked for again (default 5m). */
  refresh: toolDuration.optional(),
  /**
   * Offer the worker's file-tools folder to the server as its MCP roots (`roots/list`). Off unless set: some servers
   * (the reference filesystem server among them) let a client's roots replace the folders they were started with.
   */
  roots: z.boolean().optional(),
  /**
   * Serve the server's sampling requests (`sampling/createMessage`) with the run's model, as a model call of the run.
   * Off unless set: answering one stops the call and makes it again with the answer, so only a server whose calls
   * may be repeated should have it. `'ask'`: a person lets each request through first (the run's question, with what
   * the server asks the model), and a request declined ends the call.
   */
  sampling: z.union([z.boolean(), z.literal('ask')]).optional(),
  /**
   * Let the server ask a person to fill in a form (`elicitation/create`, form mode): the run asks it as its question
   * and the call is made again with the answer. Off unless set, for the same reason as `sampling`. `'decline'`: for
   * unattended workers, declare the capability (some servers need it to offer their tools) but decline every form
   * at once, asking no one.
   */
  elicitation: z.union([z.boolean(), z.literal('decline')]).optional(),
};

/**
 * One MCP server: a command the worker starts (stdio: `command`, `args`, `env`, `cwd`) or a streamable HTTP endpoint
 * (`url`, `headers`). One object rather than a union, so a mistake is reported at its field.
 */
export const mcpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    ...common,
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: 'give either command (a stdio server) or url (streamable HTTP)',
  });

/** An MCP server's configuration. */
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/**
 * MCP servers by name. The name prefixes its tools (`github__create_issue`): two servers' tools cannot collide, and
 * the result is still a name every model provider accepts (OpenAI's tool names allow no dots).
 */
export const mcpServersSchema = z.record(
  z.string().regex(/^[a-zA-Z][a-zA-Z0-9-]{0,30}$/, 'a server name is letters, digits and -, starting with a letter'),
  mcpServerSchema,
);

/** MCP servers by name. */
export type McpServersConfig = z.infer<typeof mcpServersSchema>;

/** Parses MCP servers' configuration (e.g. the MCP_SERVERS file); one line with every problem when it is invalid. */
export function parseMcpServers(input: unknown, origin = 'MCP servers'): McpServersConfig {
  const parsed = mcpServersSchema.safeParse(input);
  if (!parsed.success) throw new McpConfigError(`${origin}: ${formatZodIssues(parsed.error.issues)}`);
  return parsed.data;
}
