/**
 * The lower bound: a ReAct loop in one process with the same `openai` client, no durability and no checkpoints.
 * What it costs is the model's HTTP round trip and JSON; anything a contender adds on top is orchestration.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { childMain } from '../child';
import { measureLoop, type LoopJob, type LoopResult } from '../measure';
import { NOOP_DESCRIPTION } from '../scenario';

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'noop', description: NOOP_DESCRIPTION, parameters: { type: 'object', properties: { step: { type: 'integer' } } } },
  },
];

async function runAgent(openai: OpenAI, model: string): Promise<void> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a ReAct agent. Think, call tools, then answer.' },
    { role: 'user', content: 'Call the no-op tool until you are done.' },
  ];
  for (;;) {
    const reply = await openai.chat.completions.create({ model, messages, tools });
    const message = reply.choices[0]?.message;
    if (!message) throw new Error('the model sent no choice');
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return;
    for (const call of calls) {
      if (call.type !== 'function') continue;
      JSON.parse(call.function.arguments);
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
    }
  }
}

childMain<LoopJob, LoopResult>(async (job) => {
  const openai = new OpenAI({ baseURL: job.baseURL, apiKey: 'not-needed', maxRetries: 0 });
  return measureLoop(job, (model) => runAgent(openai, model));
});
