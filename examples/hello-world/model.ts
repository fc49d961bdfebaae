// No model key yet? This stands in for one: an OpenAI-compatible server on loopback that answers every run of any
// model name by calling word_count on the quoted text of the question, then reporting what the tool returned.
// Start it, then the worker with the URL it prints:  OPENAI_BASE_URL=http://127.0.0.1:…/v1 npx tsx worker.ts
import { lastMessageOf, startScriptedModel, type ScriptedResponder } from 'durable-react-agent/testing';

const countWords: ScriptedResponder = (request) => {
  if (request.messages.some((message) => message.role === 'tool'))
    return { answer: `The text has ${lastMessageOf(request, 'tool')}.` };
  const question = lastMessageOf(request, 'user');
  const text = /"([^"]*)"/.exec(question)?.[1] ?? question;
  return {
    thought: 'Counting words by eye is error-prone, so I call the word_count tool on the quoted text.',
    toolCalls: [{ name: 'word_count', args: { text } }],
  };
};

const model = await startScriptedModel({ scriptFor: () => countWords });
console.log(`OPENAI_BASE_URL=${model.baseURL}`);
console.log('A scripted model, not an LLM: every run counts the words of its quoted text. Ctrl-C stops it.');
