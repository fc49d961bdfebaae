/**
 * Context window assumed for a model this package does not know, in tokens. Small enough for the common local models
 * (Qwen2.5, Mistral and Llama 3.1 served with their defaults), so a long run compacts before a provider refuses it; a
 * model with a larger window only compacts sooner than it must. Set `contextWindow` to use the whole window.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/**
 * Windows of well-known models, by a part of the name as OpenAI-compatible servers spell it (`gpt-4o-mini`,
 * `openai/gpt-4o`, `llama3.1:8b`, `meta-llama/Llama-3.1-8B-Instruct`). The first match wins, so longer names come
 * before their prefixes. These are the vendors' published sizes; a server may serve a smaller one (vLLM's
 * `--max-model-len`, Ollama's `num_ctx`), which its first "context length" error then teaches the run.
 */
const KNOWN_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/gpt-4\.1/, 1_047_576],
  [/gpt-5/, 400_000],
  [/gpt-4o|gpt-4-turbo/, 128_000],
  [/(?:^|\/)o[134](?:-|$)/, 200_000],
  [/gpt-3\.5-turbo/, 16_385],
  [/gpt-4(?!\d)/, 8_192],
  [/claude/, 200_000],
  [/deepseek-(?:chat|reasoner|r1|v3)/, 65_536],
  [/llama-?3\.[123]/, 131_072],
  [/llama-?3(?![.\d])/, 8_192],
  [/qwen-?3|qwen-?2\.5|mistral|mixtral/, 32_768],
  [/gemma-?2/, 8_192],
];

/** The published context window of a well-known model, or undefined for any other name. */
export function knownContextWindow(model: string | undefined): number | undefined {
  if (model === undefined) return undefined;
  const name = model.toLowerCase();
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(name))?.[1];
}
