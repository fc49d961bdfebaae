import { z } from 'zod';

/** The shape of one `stopWhen` entry. */
export const stopConditionSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('observation_contains'),
    text: z.string().min(1),
    /** Only observations of this tool count. */
    tool: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('tool_called'), tool: z.string().min(1) }),
  z.strictObject({ type: z.literal('thought_contains'), text: z.string().min(1) }),
]);

/** A declarative custom stop condition; when one matches, the run ends with reason `custom`. */
export type StopCondition = z.infer<typeof stopConditionSchema>;
