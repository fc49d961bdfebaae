import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../worker/tools/define-tool';

/** The records the suite's lookup tools know; anything else is not found. */
const CAPITALS: Record<string, string> = { peru: 'Lima', kenya: 'Nairobi', norway: 'Oslo', chile: 'Santiago' };

/** The chain's first run ID: a key that stays put across a run's retries and hand-overs, and differs between runs. */
const runOf = (idempotencyKey: string): string => idempotencyKey.split(':')[0] ?? idempotencyKey;

/**
 * The eval suite's own tools beside the built-ins: lookups that fail the first time in each run (error recovery),
 * one that never finds anything (tasks that cannot be done), a slow one (time budgets) and an e-mail that a person
 * must confirm (approval tasks). Deterministic, so a scripted agent's scores are too.
 */
export function createEvalTools(): AnyToolDefinition[] {
  const failedOnce = new Set<string>();
  return [
    defineTool({
      name: 'capital_lookup',
      description: 'The capital city of a country, from the records service (which is sometimes briefly unavailable).',
      category: 'eval',
      schema: z.object({ country: z.string().min(1) }),
      handler: ({ country }, { idempotencyKey }) => {
        const key = `${runOf(idempotencyKey)}:${country.toLowerCase()}`;
        if (!failedOnce.has(key)) {
          failedOnce.add(key);
          throw new Error('the records service is temporarily unavailable, try again');
        }
        const capital = CAPITALS[country.toLowerCase()];
        return capital ? { country, capital } : { country, capital: null, note: 'no record of this country' };
      },
    }),
    defineTool({
      name: 'archive_search',
      description: 'Searches the document archive by keyword.',
      category: 'eval',
      schema: z.object({ keyword: z.string().min(1) }),
      handler: () => ({ results: [], note: 'the archive has no documents matching this keyword' }),
    }),
    defineTool({
      name: 'slow_report',
      description: 'Builds a quarterly report (takes a few seconds).',
      category: 'eval',
      schema: z.object({ quarter: z.string().min(1) }),
      timeout: '30s',
      handler: async ({ quarter }, { signal }) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 3000);
          signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
        });
        return { quarter, revenue: 1200 };
      },
    }),
    defineTool({
      name: 'send_email',
      description: 'Sends an e-mail (a person confirms every message first).',
      category: 'eval',
      schema: z.object({ to: z.string().min(1), body: z.string().min(1) }),
      confirm: 'always',
      handler: ({ to }) => ({ sent: true, to }),
    }),
  ];
}
