// The tool the agent may call. Its handler runs on the worker, as a Temporal activity.
import { defineTool } from 'durable-react-agent';
import { z } from 'zod';

export const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words in a text.',
  schema: z.object({ text: z.string() }),
  handler: ({ text }) => `${text.split(/\s+/).filter(Boolean).length} words`,
});
