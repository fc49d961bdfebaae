// Zod-free: the workflow imports this module (its zod fields live in config-fields.ts, on the client and worker).

/** `toolChoice` values: the Chat Completions API's own, so they mean what its documentation says. */
export const TOOL_CHOICES = ['auto', 'required', 'none'] as const;
/** `reasoningEffort` values every reasoning model of the API accepts. */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
/** Largest `maxTokens` a config may ask for: above any model's output limit, so only nonsense is refused. */
export const MAX_COMPLETION_TOKENS = 1_000_000;

/** The model settings as a config holds them. */
export interface ModelSettingsConfig {
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  toolChoice?: (typeof TOOL_CHOICES)[number] | undefined;
  reasoningEffort?: (typeof REASONING_EFFORTS)[number] | undefined;
  parallelToolCalls?: boolean | undefined;
}

/**
 * The settings a thinking call sends as they are. `maxTokens` is not among them: the workflow combines it with the
 * token budget into `CallModelInput.maxTokens`.
 */
export type ModelSettings = Omit<ModelSettingsConfig, 'maxTokens'>;

/** The settings a config sets, for `CallModelInput.settings`; undefined when it sets none. */
export function modelSettingsOf(config: ModelSettingsConfig): ModelSettings | undefined {
  const { temperature, toolChoice, reasoningEffort, parallelToolCalls } = config;
  const all: ModelSettings = { temperature, toolChoice, reasoningEffort, parallelToolCalls };
  const set = Object.entries(all).filter(([, value]) => value !== undefined);
  return set.length > 0 ? Object.fromEntries(set) : undefined;
}

/** Settings that only native tool calling can send, and why text mode cannot. */
const NATIVE_ONLY = {
  toolChoice: 'text mode offers the model no tools to choose from',
  parallelToolCalls: 'text mode takes one action per reply',
} as const;

/**
 * Settings a config asks for that its tool-calling mode cannot send, one message each (subagents included: they
 * inherit the run's mode). Refused rather than ignored, so a run never silently behaves otherwise than configured.
 */
export function modelSettingsProblems(config: {
  modelSettings: ModelSettingsConfig & { toolCalling: string };
  subagents: Record<string, { modelSettings?: ModelSettingsConfig | undefined }>;
}): string[] {
  if (config.modelSettings.toolCalling === 'native') return [];
  const scopes: Array<[string, ModelSettingsConfig]> = [
    ['modelSettings.', config.modelSettings],
    ...Object.entries(config.subagents).map(([name, sub]): [string, ModelSettingsConfig] => [
      `subagents.${name}.modelSettings.`,
      sub.modelSettings ?? {},
    ]),
  ];
  return scopes.flatMap(([prefix, settings]) =>
    (Object.keys(NATIVE_ONLY) as Array<keyof typeof NATIVE_ONLY>)
      .filter((key) => settings[key] !== undefined)
      .map((key) => `${prefix}${key}: needs modelSettings.toolCalling 'native' (${NATIVE_ONLY[key]})`),
  );
}
