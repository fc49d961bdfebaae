import { z } from 'zod';

/** Each kind of `stopWhen` entry, apart: the grouped config extends `thoughtContains` with an outcome. */
export const stopConditionShapes = {
  observationContains: z.strictObject({
    type: z.literal('observation_contains'),
    text: z.string().min(1),
    /** Only observations of this tool count. */
    tool: z.string().min(1).optional(),
  }),
  toolCalled: z.strictObject({ type: z.literal('tool_called'), tool: z.string().min(1) }),
  thoughtContains: z.strictObject({ type: z.literal('thought_contains'), text: z.string().min(1) }),
};

/** The shape of one resolved `stopWhen` entry. */
export const stopConditionSchema = z.discriminatedUnion('type', [
  stopConditionShapes.observationContains,
  stopConditionShapes.toolCalled,
  stopConditionShapes.thoughtContains,
]);

/** A declarative custom stop condition; when one matches, the run ends with reason `custom`. */
export type StopCondition = z.infer<typeof stopConditionSchema>;
