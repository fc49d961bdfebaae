import { z } from 'zod';
import { resolvedConfigSchema, subagentSchema, validateResolvedConfig, type ResolvedConfig } from './config';
import { stopConditionShapes } from './stop-conditions';
import { formatZodIssues } from './validation';

// The config as people write it: a few groups instead of one long list. Every field is the resolved schema's own
// (src/shared/config.ts): its checks, default and description are written once, there. The client flattens a grouped
// config into that resolved shape, which is what crosses the wire and what recorded histories hold, so regrouping
// the public surface changes nothing a worker replays.

const flat = resolvedConfigSchema.shape;
type FlatField = keyof typeof flat;

/** Each group's fields: public name → the resolved field it sets. */
export const CONFIG_GROUPS = {
  modelSettings: {
    temperature: 'temperature',
    maxTokens: 'maxTokens',
    toolChoice: 'toolChoice',
    reasoningEffort: 'reasoningEffort',
    parallelToolCalls: 'parallelToolCalls',
    contextWindow: 'contextWindow',
    toolCalling: 'toolCalling',
    stream: 'stream',
    thoughtTag: 'thoughtTag',
    actionTag: 'actionTag',
    observationTag: 'observationTag',
  },
  thoughts: { prompt: 'thoughtPrompt', require: 'requireThought', minLength: 'minThoughtLength' },
  limits: {
    maxIterations: 'maxIterations',
    tokenBudget: 'tokenBudget',
    timeoutSeconds: 'timeoutSeconds',
    cost: 'costBudget',
    maxToolCallsPerReply: 'maxToolCallsPerReply',
    maxCallsPerTool: 'maxCallsPerTool',
    stallThreshold: 'stallThreshold',
    onReached: 'onBudget',
  },
  approvals: {
    require: 'requireConfirmation',
    skip: 'skipConfirmation',
    timeout: 'approvalTimeout',
    onTimeout: 'onApprovalTimeout',
    approvers: 'approvers',
    requireSigned: 'requireSigned',
    clarification: 'allowClarification',
  },
  history: {
    scratchpad: 'enableScratchpad',
    maxObservationTokens: 'maxObservationTokens',
    summarizeObservationsOver: 'summarizeObservationsOver',
    summaryEvery: 'summaryEvery',
    maxStepsPerRun: 'maxStepsPerRun',
    carrySteps: 'carrySteps',
  },
  conversation: { idleTimeout: 'conversationIdleTimeout' },
  output: { schema: 'outputSchema', mode: 'outputMode', signature: 'signature' },
} as const satisfies Record<string, Record<string, FlatField>>;

type GroupName = keyof typeof CONFIG_GROUPS;

/** A group's schema: its public names over the resolved fields' own schemas. */
function group<const G extends Record<string, FlatField>>(fields: G, description: string) {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, flat[field]])) as {
    [K in keyof G]: (typeof flat)[G[K]];
  };
  return z.strictObject(shape).optional().describe(description);
}

/** A `stopWhen` entry; `thought_contains` may end the run as `success` or `failure` instead of `custom`. */
const stopCondition = z.discriminatedUnion('type', [
  stopConditionShapes.observationContains,
  stopConditionShapes.toolCalled,
  stopConditionShapes.thoughtContains.extend({
    outcome: z
      .enum(['custom', 'success', 'failure'])
      .optional()
      .describe('`success`: the thought is the answer; `failure` also matches the final answer; default `custom`'),
  }),
]);

const subagent = subagentSchema.shape;

/** A subagent as written: the same groups as the run's, holding only what a helper agent sets for itself. */
const publicSubagentSchema = z.strictObject({
  description: subagent.description,
  systemPrompt: subagent.systemPrompt,
  tools: subagent.tools,
  model: subagent.model,
  modelSettings: z
    .strictObject({
      temperature: subagent.temperature,
      maxTokens: subagent.maxTokens,
      toolChoice: subagent.toolChoice,
      reasoningEffort: subagent.reasoningEffort,
      parallelToolCalls: subagent.parallelToolCalls,
    })
    .optional(),
  limits: z.strictObject({ maxIterations: subagent.maxIterations, timeoutSeconds: subagent.timeoutSeconds }).optional(),
});

/** The one schema of a run's configuration as callers write it. Unknown fields are refused, so typos surface early. */
export const agentConfigSchema = z.strictObject({
  model: flat.model,
  modelSettings: group(
    CONFIG_GROUPS.modelSettings,
    'how each thinking call is made: sampling settings, the tool-calling protocol, streaming',
  ),
  systemPrompt: flat.systemPrompt,
  tools: flat.tools,
  thoughts: group(CONFIG_GROUPS.thoughts, 'what the model is asked to think, and how a thought is checked'),
  limits: group(CONFIG_GROUPS.limits, 'when a run stops, and what happens when it reaches a limit'),
  stopWhen: z
    .array(stopCondition)
    .max(100)
    .optional()
    .describe(
      "stops of your own: `{type:'tool_called', tool}` (a call that ran without error), `{type:'observation_contains', text, tool?}`, `{type:'thought_contains', text, outcome?}`; the run ends with reason `custom` unless `outcome` says `success` or `failure`",
    ),
  forceFinalAnswer: flat.forceFinalAnswer,
  approvals: group(CONFIG_GROUPS.approvals, 'which calls wait for a person, who may decide them, and for how long'),
  history: group(CONFIG_GROUPS.history, 'what the model sees of earlier steps, and how a long run is carried on'),
  conversation: group(CONFIG_GROUPS.conversation, 'makes the run a conversation that takes follow-up messages'),
  critic: flat.critic,
  output: group(CONFIG_GROUPS.output, 'the shape of the final answer'),
  subagents: z
    .record(
      z.string().regex(/^[a-zA-Z][\w-]{0,63}$/, 'a subagent name is letters, digits, _ or -'),
      publicSubagentSchema,
    )
    .optional()
    .describe(flat.subagents.description ?? ''),
});

/** A run's configuration as callers write it: every group and field optional. */
export type AgentConfig = z.input<typeof agentConfigSchema>;

type Flat = Record<string, unknown>;

function setDefined(target: Flat, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

function flattenSubagent(input: z.input<typeof publicSubagentSchema>): Flat {
  const { modelSettings, limits, ...rest } = input;
  const out: Flat = {};
  for (const [key, value] of Object.entries({ ...rest, ...modelSettings, ...limits })) setDefined(out, key, value);
  return out;
}

/**
 * A checked grouped config in the resolved shape, with no defaults added: a partial config (a fork's overrides) stays
 * partial. `stopWhen` sets the success and failure phrases too, so a `stopWhen` given replaces all three.
 */
export function flattenConfig(input: AgentConfig): Flat {
  const out: Flat = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (key in CONFIG_GROUPS) {
      const fields: Record<string, string> = CONFIG_GROUPS[key as GroupName];
      for (const [name, field] of Object.entries(value as Flat)) setDefined(out, fields[name] ?? name, field);
    } else if (key === 'stopWhen') {
      const conditions = value as NonNullable<AgentConfig['stopWhen']>;
      const phrases = (outcome: 'success' | 'failure') =>
        conditions.flatMap((c) => (c.type === 'thought_contains' && c.outcome === outcome ? [c.text] : []));
      out.successPhrases = phrases('success');
      out.failurePhrases = phrases('failure');
      out.stopWhen = conditions
        .filter((c) => c.type !== 'thought_contains' || (c.outcome ?? 'custom') === 'custom')
        .map((c) => (c.type === 'thought_contains' ? { type: c.type, text: c.text } : c));
    } else if (key === 'subagents') {
      const subagents = value as NonNullable<AgentConfig['subagents']>;
      out.subagents = Object.fromEntries(Object.entries(subagents).map(([name, sub]) => [name, flattenSubagent(sub)]));
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Where each field of the flat shape (1.0's release candidates took it) went: the CHANGELOG's table as data, so an old
 * config file gets its new name instead of a bare "unknown field".
 */
const MOVED_FIELDS: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(CONFIG_GROUPS).flatMap(([groupName, fields]) =>
      Object.entries(fields).map(([name, field]) => [field, `\`${groupName}.${name}\``]),
    ),
  ),
  successPhrases: "`stopWhen: [{ type: 'thought_contains', text, outcome: 'success' }]`",
  failurePhrases: "`stopWhen: [{ type: 'thought_contains', text, outcome: 'failure' }]`",
  modelCalls: "the worker's `modelCalls` option, or WORKER_MODEL_CALLS",
  runAhead: "the worker's `runAhead` option, or WORKER_RUN_AHEAD",
};
/** A subagent's flat fields: its model settings and limits went into the groups its schema has. */
const MOVED_SUBAGENT_FIELDS: Record<string, string> = Object.fromEntries(
  (['modelSettings', 'limits'] as const).flatMap((groupName) =>
    Object.keys(publicSubagentSchema.shape[groupName].unwrap().shape).map((name) => [name, `\`${groupName}.${name}\``]),
  ),
);

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

/**
 * A partial grouped config (a fork's changes, a replay's), checked and flattened with no defaults added, to lay over a
 * resolved config; or one line naming every problem.
 */
export function configOverrides(input: unknown): { ok: true; overrides: Flat } | { ok: false; message: string } {
  const parsed = agentConfigSchema.safeParse(input);
  if (!parsed.success) {
    const moved = movedFieldHints(parsed.error.issues);
    const hint = moved.length > 0 ? ` (${moved.join('; ')})` : '';
    return { ok: false, message: `Invalid agent config: ${formatZodIssues(parsed.error.issues)}${hint}` };
  }
  return { ok: true, overrides: flattenConfig(input as AgentConfig) };
}

/** Outcome of validating a config: the resolved config (every default applied), or one line listing every problem. */
export type ConfigValidation = { ok: true; config: ResolvedConfig } | { ok: false; message: string };

/**
 * Checks a grouped config and resolves it (flattened, defaults applied); every problem on one line, e.g.
 * `Invalid agent config: limits.maxIterations: expected number, received string`.
 */
export function validateAgentConfig(input: unknown): ConfigValidation {
  // Flattened from the raw input, not the parsed one: the parse fills a given group's defaults, which must not
  // override a parent's settings in a fork's partial config. The resolved schema fills them.
  const checked = configOverrides(input ?? {});
  return checked.ok ? validateResolvedConfig(checked.overrides) : checked;
}

/**
 * A workflow input's config, which may come in either shape: grouped as people write it (a run started from the
 * Temporal UI or another SDK), or resolved as the client, subagents and continue-as-new send it. The shapes agree
 * where they overlap, so whichever accepts it reads it the same way; when neither does, the problems reported are
 * those of the resolved shape if a field only it has was given, else the grouped (documented) shape's.
 */
export function validateWorkflowConfig(input: unknown): ConfigValidation {
  const grouped = validateAgentConfig(input);
  if (grouped.ok) return grouped;
  const resolved = validateResolvedConfig(input);
  if (resolved.ok) return resolved;
  // The problems of the shape it was written in: a field only the resolved shape has says which.
  const fields = typeof input === 'object' && input !== null ? Object.keys(input) : [];
  const resolvedOnly = fields.some(
    (field) => field in resolvedConfigSchema.shape && !(field in agentConfigSchema.shape),
  );
  return resolvedOnly ? resolved : grouped;
}
