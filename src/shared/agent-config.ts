import { type z } from 'zod';
import { agentConfigSchema, CONFIG_GROUPS, isConfigGroup, type AgentConfig, type ResolvedConfig } from './config';
import { modelSettingsProblems } from './model-settings';
import { formatZodIssues } from './validation';

export { agentConfigSchema, type AgentConfig } from './config';

// Checking a config as people write it, and laying a partial one (a fork's changes) over a whole one.

/** The fields whose flat name (1.0's release candidates') was not their name in the group: the CHANGELOG's table. */
const RENAMED: Readonly<Record<string, string>> = {
  'thoughts.prompt': 'thoughtPrompt',
  'thoughts.require': 'requireThought',
  'thoughts.minLength': 'minThoughtLength',
  'limits.cost': 'costBudget',
  'limits.onReached': 'onBudget',
  'approvals.require': 'requireConfirmation',
  'approvals.skip': 'skipConfirmation',
  'approvals.timeout': 'approvalTimeout',
  'approvals.onTimeout': 'onApprovalTimeout',
  'approvals.clarification': 'allowClarification',
  'history.scratchpad': 'enableScratchpad',
  'conversation.idleTimeout': 'conversationIdleTimeout',
  'output.schema': 'outputSchema',
  'output.mode': 'outputMode',
};

/** A group's schema as the config holds it: under the `prefault` (the run's) or `optional` (a subagent's) it has. */
type GroupSchema = { unwrap(): z.ZodObject };

/** Where each flat field went, built from the schema itself: `maxIterations` → "`limits.maxIterations`". */
function movedFields(shape: object, groups: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    groups.flatMap((group) =>
      Object.keys((shape as Record<string, GroupSchema>)[group]!.unwrap().shape).map((field) => [
        RENAMED[`${group}.${field}`] ?? field,
        `\`${group}.${field}\``,
      ]),
    ),
  );
}

const MOVED_FIELDS: Record<string, string> = {
  ...movedFields(agentConfigSchema.shape, CONFIG_GROUPS),
  successPhrases: "`stopWhen: [{ type: 'thought_contains', text, outcome: 'success' }]`",
  failurePhrases: "`stopWhen: [{ type: 'thought_contains', text, outcome: 'failure' }]`",
  modelCalls: "the worker's `modelCalls` option, or WORKER_MODEL_CALLS",
  runAhead: "the worker's `runAhead` option, or WORKER_RUN_AHEAD",
};
/** A subagent's flat fields: its model settings and limits went into the groups its schema has. */
const MOVED_SUBAGENT_FIELDS = movedFields(agentConfigSchema.shape.subagents.unwrap().valueType.shape, [
  'modelSettings',
  'limits',
]);

/** "`maxIterations` is now `limits.maxIterations`" for each old flat field among the refused ones. */
function movedFieldHints(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [];
    const [first, , third] = issue.path;
    const moved =
      issue.path.length === 0
        ? MOVED_FIELDS
        : first === 'subagents' && third === undefined
          ? MOVED_SUBAGENT_FIELDS
          : {};
    return issue.keys.flatMap((key) => (Object.hasOwn(moved, key) ? [`\`${key}\` is now ${moved[key]}`] : []));
  });
}

/** Outcome of validating a config: the resolved config (every default applied), or one line listing every problem. */
export type ConfigValidation = { ok: true; config: ResolvedConfig } | { ok: false; message: string };

/**
 * Checks a config and resolves it (every default applied); every problem on one line, e.g.
 * `Invalid agent config: limits.maxIterations: expected number, received string`. A resolved config checks as itself.
 */
export function validateAgentConfig(input: unknown): ConfigValidation {
  const parsed = agentConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const moved = movedFieldHints(parsed.error.issues);
    const hint = moved.length > 0 ? ` (${moved.join('; ')})` : '';
    return { ok: false, message: `Invalid agent config: ${formatZodIssues(parsed.error.issues)}${hint}` };
  }
  // Checked after the fields, which zod checks one by one: whether a setting can be sent depends on `toolCalling`.
  const problems = modelSettingsProblems(parsed.data);
  if (problems.length === 0) return { ok: true, config: parsed.data };
  return { ok: false, message: `Invalid agent config: ${problems.join('; ')}` };
}

/**
 * A partial config (a fork's changes, a replay's) checked, with no defaults added, to lay over a whole one with
 * {@link mergeConfig}; or one line naming every problem.
 */
export function configOverrides(input: unknown): { ok: true; overrides: AgentConfig } | { ok: false; message: string } {
  const checked = validateAgentConfig(input);
  // The parse fills a given group's defaults, which must not override a parent's settings: the input is kept as given.
  return checked.ok ? { ok: true, overrides: input as AgentConfig } : checked;
}

/**
 * `overrides` laid over `base`: a group's fields replace the base's one by one (a field given as undefined changes
 * nothing), any other field whole. A group the base wrote as something else is left for the schema to refuse.
 */
export function mergeConfig<T extends AgentConfig>(base: T, overrides: AgentConfig): T {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!isConfigGroup(key)) {
      merged[key] = value;
      continue;
    }
    const given = Object.entries(value as object).filter(([, field]) => field !== undefined);
    const current: unknown = merged[key];
    if (given.length === 0 || (current !== undefined && (typeof current !== 'object' || current === null))) continue;
    merged[key] = { ...current, ...Object.fromEntries(given) };
  }
  return merged as T;
}
