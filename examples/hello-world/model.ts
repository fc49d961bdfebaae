// No model key yet? This stands in for one: an OpenAI-compatible server on loopback that answers every run of any
// model name by calling word_count on the quoted text of the question, then reporting what the tool returned.
// `durable-react-agent dev --model-script model.ts` serves `script` itself. Run on its own (`npx tsx model.ts`), it
// serves it and prints the URL for the worker:  OPENAI_BASE_URL=http://127.0.0.1:…/v1 npx tsx worker.ts
import { pathToFileURL } from 'node:url';
import { lastMessageOf, startScriptedModel, type ScriptedResponder } from 'durable-react-agent/testing';

export const script: ScriptedResponder = (request) => {
  if (request.messages.some((message) => message.role === 'tool'))
    return { answer: `The text has ${lastMessageOf(request, 'tool')}.` };
  const question = lastMessageOf(request, 'user');
  const text = /"([^"]*)"/.exec(question)?.[1] ?? question;
  return {
    thought: 'Counting words by eye is error-prone, so I call the word_count tool on the quoted text.',
    toolCalls: [{ name: 'word_count', args: { text } }],
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = await startScriptedModel({ scriptFor: () => script });
  console.log(`OPENAI_BASE_URL=${model.baseURL}`);
  console.log('A scripted model, not an LLM: every run counts the words of its quoted text. Ctrl-C stops it.');
}
