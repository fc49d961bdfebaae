/**
 * The lower bound: a ReAct loop in one process with the same `openai` client, no durability and no checkpoints.
 * What it costs is the model's HTTP round trip and JSON; anything a contender adds on top is orchestration.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { childMain } from '../child';
import { measureLoop, type LoopJob, type LoopResult } from '../measure';
import { NOOP_TOOLS, noopToolAnswers, openingMessages } from '../scenario';

async function runAgent(openai: OpenAI, model: string): Promise<void> {
  const messages: ChatCompletionMessageParam[] = openingMessages();
  for (;;) {
    const reply = await openai.chat.completions.create({ model, messages, tools: NOOP_TOOLS });
    const message = reply.choices[0]?.message;
    if (!message) throw new Error('the model sent no choice');
    const answers = noopToolAnswers(message);
    messages.push(message, ...answers);
    if (answers.length === 0) return;
  }
}

childMain<LoopJob, LoopResult>(async (job) => {
  const openai = new OpenAI({ baseURL: job.baseURL, apiKey: 'not-needed', maxRetries: 0 });
  return measureLoop(job, (model) => runAgent(openai, model));
});
