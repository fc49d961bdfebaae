/** The SDK floor's one activity (see sdk-floor-workflow.ts): a model call plus the no-op tools it asked for. */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { NOOP_TOOLS, noopToolAnswers } from '../scenario';

export type FloorMessage = ChatCompletionMessageParam;

export interface FloorActivities {
  /** The assistant's message followed by one tool message per call it made. */
  floorStep(model: string, messages: FloorMessage[]): Promise<FloorMessage[]>;
}

export function createFloorActivities(openai: OpenAI): FloorActivities {
  return {
    async floorStep(model, messages) {
      const reply = await openai.chat.completions.create({ model, messages, tools: NOOP_TOOLS });
      const message = reply.choices[0]?.message;
      if (!message) throw new Error('the model sent no choice');
      return [message, ...noopToolAnswers(message)];
    },
  };
}
