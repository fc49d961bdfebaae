import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { agentConfigSchema, type AgentConfig } from '../shared/agent-config';
import { TERMINATION_REASONS } from '../shared/termination-reasons';
import type { TerminationReason } from '../shared/termination-reasons';

/** How the eval's scripted reviewer settles a call that waits for a person. */
const reviewSchema = z.object({
  decision: z.enum(['approve', 'reject', 'respond']),
  reason: z.string().optional(),
  observation: z.string().optional(),
});

const taskSchema = z.object({
  id: z.string().min(1),
  category: z.string().min(1),
  query: z.string().min(1),
  config: z.record(z.string(), z.unknown()).default({}),
  expect: z.object({
    /** The termination reasons that count as correct for this task (one, or several when either is right). */
    reasons: z.array(z.enum(TERMINATION_REASONS)).min(1),
    /** Texts the final answer must contain (case-insensitive) for a success to count as one. */
    answerIncludes: z.array(z.string()).default([]),
  }),
  /** Every call that waits for a person gets this decision. */
  review: reviewSchema.optional(),
});

const suiteSchema = z.object({ name: z.string().min(1), tasks: z.array(taskSchema).min(1) });

/** One task of an eval suite: a query, its config, and what a correct run looks like. */
export interface EvalTask {
  id: string;
  category: string;
  query: string;
  config: AgentConfig;
  expect: { reasons: TerminationReason[]; answerIncludes: string[] };
  review?: z.infer<typeof reviewSchema>;
}

/** A suite: its name and tasks. */
export interface EvalSuite {
  name: string;
  tasks: EvalTask[];
}

/** The suite the package ships (`evals/suite.json`). */
export const DEFAULT_SUITE = path.resolve(__dirname, '..', '..', 'evals', 'suite.json');

/** Reads and checks a suite file; each task's config must pass the agent's own config schema. */
export function loadSuite(file: string): EvalSuite {
  const parsed = suiteSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  for (const task of parsed.data.tasks) {
    const config = agentConfigSchema.safeParse(task.config);
    if (!config.success)
      throw new Error(`${file}: task ${task.id}: invalid config: ${config.error.issues[0]?.message}`);
  }
  return parsed.data;
}
