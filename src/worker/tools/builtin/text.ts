import { z } from 'zod';
import { defineTool } from '../define-tool';

/** Operations the text tool performs. */
export const TEXT_OPERATIONS = ['length', 'upper', 'lower', 'trim', 'replace', 'split'] as const;

/** One of TEXT_OPERATIONS. */
export type TextOperation = (typeof TEXT_OPERATIONS)[number];

/**
 * One flat object rather than a discriminated union: z.toJSONSchema turns a union into a root-level `oneOf`, and
 * OpenAI function calling requires the root to be `type: 'object'`. The per-operation requirements move into
 * superRefine, so a missing field still fails validation with a message naming what is missing.
 */
const textSchema = z
  .object({
    operation: z
      .enum(TEXT_OPERATIONS)
      .describe(
        'length: count characters; upper/lower: change case; trim: strip surrounding whitespace; ' +
          'replace: replace every occurrence of search (literal text) with replacement; split: split on separator',
      ),
    text: z.string().describe('The input text'),
    search: z.string().optional().describe('replace only: literal text to find (not a regex)'),
    replacement: z.string().optional().describe('replace only: text to put in its place (may be empty)'),
    separator: z.string().optional().describe('split only: literal separator; "" splits into characters'),
  })
  .superRefine((args, context) => {
    if (args.operation === 'replace' && (args.search === undefined || args.replacement === undefined)) {
      context.addIssue({
        code: 'custom',
        message: "replace needs 'search' and 'replacement'",
        path: [args.search === undefined ? 'search' : 'replacement'],
      });
    } else if (args.operation === 'replace' && args.search === '') {
      context.addIssue({ code: 'custom', message: "replace needs a non-empty 'search'", path: ['search'] });
    }
    if (args.operation === 'split' && args.separator === undefined) {
      context.addIssue({ code: 'custom', message: "split needs 'separator'", path: ['separator'] });
    }
  });

/** Arguments of the text tool after validation. */
export type TextArgs = z.output<typeof textSchema>;

/** What the text tool returns: the operation echoed back beside its result (a type, so it is a JSON ToolOutput). */
export type TextResult = {
  operation: TextOperation;
  result: number | string | string[];
};

/** Applies one text operation; throws if a field the operation needs is missing (schema parsing catches it first). */
export function applyTextOperation(args: TextArgs): TextResult {
  const { operation, text } = args;
  switch (operation) {
    case 'length':
      // Code points, not UTF-16 units: an emoji is one character to the reader and to the model.
      return { operation, result: [...text].length };
    case 'upper':
      return { operation, result: text.toUpperCase() };
    case 'lower':
      return { operation, result: text.toLowerCase() };
    case 'trim':
      return { operation, result: text.trim() };
    case 'replace': {
      if (args.search === undefined || args.search === '' || args.replacement === undefined) {
        throw new Error("replace needs a non-empty 'search' and a 'replacement'");
      }
      // split/join rather than replaceAll: replaceAll would expand "$&" and "$1" inside the replacement.
      return { operation, result: text.split(args.search).join(args.replacement) };
    }
    case 'split': {
      if (args.separator === undefined) throw new Error("split needs 'separator'");
      const result = args.separator === '' ? [...text] : text.split(args.separator);
      return { operation, result };
    }
  }
}

/** Small deterministic string operations models often get wrong (counting, exact replacement, splitting). */
export const textTool = defineTool({
  name: 'text',
  description:
    'Exact string operations: length (character count), upper, lower, trim, replace (all occurrences, literal), ' +
    'split (returns an array). Use it instead of counting or rewriting text by hand.',
  category: 'text',
  schema: textSchema,
  examples: [
    { operation: 'length', text: 'strawberry' },
    { operation: 'replace', text: 'a-b-c', search: '-', replacement: '+' },
    { operation: 'split', text: 'red,green,blue', separator: ',' },
  ],
  handler: (args) => applyTextOperation(args),
  // Pure, fast and idempotent: a local activity saves a task-queue round trip per call, and running ahead inside the
  // model call (it changes nothing) saves the step its own activity.
  local: true,
  readOnly: true,
});
