import type { ResolvedConfig } from '../shared/config';
import type { RunLineage } from '../shared/types';
import { lineageLine } from './fork';

/** Longest static summary: the UI shows it on one line in the runs list. */
export const SUMMARY_LENGTH = 120;

/** The run's one-line summary (the query, shortened) and its details (the config that matters), for the Temporal UI. */
export function startMetadata(
  query: string,
  config: ResolvedConfig,
  lineage?: RunLineage,
): { staticSummary: string; staticDetails: string } {
  const oneLine = query.replace(/\s+/g, ' ').trim();
  const staticSummary = oneLine.length > SUMMARY_LENGTH ? `${oneLine.slice(0, SUMMARY_LENGTH - 1)}…` : oneLine;
  const limits = [
    `max ${config.limits.maxIterations} iterations`,
    config.limits.tokenBudget !== undefined ? `${config.limits.tokenBudget} tokens` : null,
    config.limits.timeoutSeconds !== undefined ? `${config.limits.timeoutSeconds}s` : null,
    `stall after ${config.limits.stallThreshold}`,
  ].filter(Boolean);
  const lines = [
    ...(lineage ? [`**Lineage:** ${lineageLine(lineage)}`] : []),
    `**Model:** ${config.model ?? 'worker default (OPENAI_MODEL)'} · ${config.modelSettings.toolCalling} tool calling`,
    `**Tools:** ${config.tools?.join(', ') ?? 'all registered'}`,
    `**Limits:** ${limits.join(', ')}`,
  ];
  if (config.approvals.require.length > 0) lines.push(`**Confirm:** ${config.approvals.require.join(', ')}`);
  if (Object.keys(config.subagents).length > 0)
    lines.push(`**Subagents:** ${Object.keys(config.subagents).join(', ')}`);
  if (config.critic) lines.push('**Critic:** on');
  if (config.output.signature) lines.push(`**Signature:** \`${config.output.signature}\``);
  return { staticSummary, staticDetails: lines.join('\n') };
}
