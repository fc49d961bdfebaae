import { lastMessageOf, type ScriptedResponder } from '../testing/scripted-turn';

/** The question `npm start` asks when no model endpoint is configured. */
export const DEMO_QUERY = 'What is 17 * 23 + 4, and how many characters are in the word "durable"?';
/** Model name the demo's scripted server answers to. */
export const DEMO_MODEL = 'scripted-demo';

function resultOf(observation: string): string {
  try {
    const parsed = JSON.parse(observation) as { result?: unknown };
    return String(parsed.result);
  } catch {
    return observation;
  }
}

/**
 * The demo's scripted model: it plans two tool calls, then answers from the observations the real tools returned,
 * so the answer shows the loop working rather than a canned string.
 */
export const demoResponder: ScriptedResponder = (request) => {
  const toolResults = request.messages.filter((message) => message.role === 'tool').length;
  if (toolResults === 0) {
    return {
      thought:
        'Two facts are needed. First the arithmetic: 17 * 23 + 4 must be exact, so I will use the calculator ' +
        'rather than work it out in my head.',
      toolCalls: [{ name: 'calculator', args: { expression: '17 * 23 + 4' } }],
    };
  }
  if (toolResults === 1) {
    return {
      thought: `The calculator says ${resultOf(lastMessageOf(request, 'tool'))}. Next, the text tool can count the characters of "durable".`,
      toolCalls: [{ name: 'text', args: { operation: 'length', text: 'durable' } }],
    };
  }
  const tools = request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => resultOf(String(message.content)));
  return { answer: `17 * 23 + 4 = ${tools[0]}, and "durable" has ${tools[1]} characters.` };
};
