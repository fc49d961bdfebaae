import { z } from 'zod';

/** Each kind of `stopWhen` entry. */
const stopConditionShapes = {
  observationContains: z.strictObject({
    type: z.literal('observation_contains'),
    text: z.string().min(1),
    /** Only observations of this tool count. */
    tool: z.string().min(1).optional(),
  }),
  toolCalled: z.strictObject({ type: z.literal('tool_called'), tool: z.string().min(1) }),
  thoughtContains: z.strictObject({
    type: z.literal('thought_contains'),
    text: z.string().min(1),
    outcome: z
      .enum(['custom', 'success', 'failure'])
      .optional()
      .describe('`success`: the thought is the answer; `failure` also matches the final answer; default `custom`'),
  }),
};

/** The shape of one `stopWhen` entry. */
export const stopConditionSchema = z.discriminatedUnion('type', [
  stopConditionShapes.observationContains,
  stopConditionShapes.toolCalled,
  stopConditionShapes.thoughtContains,
]);

/** A declarative stop condition; when one matches, the run ends with reason `custom` unless its outcome says else. */
export type StopCondition = z.infer<typeof stopConditionSchema>;
