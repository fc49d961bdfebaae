import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { getPromptQuery } from '../../shared/messages';
import {
  applyPromptDelta,
  promptChars,
  type CallModelInput,
  type ChatMessage,
  type PromptDelta,
  type PromptSnapshot,
} from '../../shared/protocol';

/**
 * Characters of prompts a worker keeps by default (about 16 MB at most): enough for the latest prompt of a few
 * thousand runs of ordinary size. Runs beyond it cost a query to their workflow when they call the model next.
 */
export const DEFAULT_PROMPT_CACHE_CHARS = 8_000_000;

/**
 * The latest prompt of each run this worker called the model for, so the next call's delta rebuilds on it; least
 * recently used runs go first once the prompts exceed `maxChars` characters.
 */
export class PromptCache {
  private readonly prompts = new Map<string, PromptSnapshot & { chars: number }>();
  private chars = 0;

  constructor(private readonly maxChars = DEFAULT_PROMPT_CACHE_CHARS) {}

  get(run: string): PromptSnapshot | undefined {
    const entry = this.prompts.get(run);
    if (!entry) return undefined;
    // Map order is the eviction order: a use moves the run to the back.
    this.prompts.delete(run);
    this.prompts.set(run, entry);
    return entry;
  }

  set(run: string, prompt: PromptSnapshot): void {
    this.delete(run);
    const chars = promptChars(prompt.messages);
    if (chars > this.maxChars) return;
    this.prompts.set(run, { ...prompt, chars });
    this.chars += chars;
    for (const [key, entry] of this.prompts) {
      if (this.chars <= this.maxChars) break;
      this.prompts.delete(key);
      this.chars -= entry.chars;
    }
  }

  /** Prompts held, and their characters. */
  get size(): { runs: number; chars: number } {
    return { runs: this.prompts.size, chars: this.chars };
  }

  private delete(run: string): void {
    const entry = this.prompts.get(run);
    if (!entry) return;
    this.prompts.delete(run);
    this.chars -= entry.chars;
  }
}

/** The run whose workflow scheduled this call: a delta only means something against that run's prompts. */
function callingRun(): { workflowId: string; runId: string } {
  const execution = Context.current().info.workflowExecution;
  if (!execution)
    throw ApplicationFailure.nonRetryable('a prompt delta needs the run that sent it', 'InvalidModelInput');
  return execution;
}

/** Asks the run's workflow for prompt `seq`: the fallback when this worker does not hold the one before it. */
async function promptFromWorkflow(seq: number): Promise<ChatMessage[]> {
  const { workflowId, runId } = callingRun();
  const latest = await Context.current().client.workflow.getHandle(workflowId, runId).query(getPromptQuery);
  if (latest?.seq !== seq) {
    // The workflow has moved past this call (it timed out and was retried): this attempt's answer is not awaited.
    throw ApplicationFailure.retryable(
      `prompt ${seq} is no longer the run's latest (it is at ${latest?.seq ?? 'none'})`,
      'PromptUnavailable',
    );
  }
  return latest.messages;
}

/**
 * The messages of a `callModel` input: given whole, or rebuilt from the run's previous prompt and the delta, from
 * this worker's cache when it holds that prompt and from the workflow when not (another worker made the last call,
 * or this one restarted or let it go).
 */
export async function resolvePrompt(cache: PromptCache, input: CallModelInput): Promise<ChatMessage[]> {
  if (input.messages) return input.messages;
  const delta: PromptDelta | undefined = input.prompt;
  if (!delta) throw ApplicationFailure.nonRetryable('callModel was given no prompt', 'InvalidModelInput');
  const { workflowId, runId } = callingRun();
  const run = `${workflowId}/${runId}`;
  const cached = cache.get(run);
  // A retry of the same call finds its own prompt already rebuilt.
  const messages =
    (cached?.seq === delta.seq && cached.messages.length === delta.length ? cached.messages : null) ??
    applyPromptDelta(cached, delta) ??
    (await promptFromWorkflow(delta.seq));
  cache.set(run, { seq: delta.seq, messages });
  return messages;
}
