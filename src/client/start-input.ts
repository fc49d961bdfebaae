import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { ResolvedConfig } from '../shared/config';
import { AGENT_SEARCH_ATTRIBUTES, AgentStatusKey } from '../shared/search-attributes';
import { parseSignature, renderInputs } from '../shared/signature';
import type { ReActTrace } from '../shared/types';
import { formatZodIssues } from '../shared/validation';
import { AgentRunError, InvalidConfigError, SearchAttributesMissingError } from './errors';

// What AgentClient does to a run's input before it starts, and to the server's answers after.

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export function explainMissingSearchAttributes(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  if (!/search attribute/i.test(message) || !message.includes(AgentStatusKey.name)) return error;
  const commands = AGENT_SEARCH_ATTRIBUTES.map(
    ({ name, type }) =>
      `temporal operator search-attribute create --name ${name} --type ${type === 'keyword' ? 'Keyword' : 'KeywordList'}`,
  ).join(' && ');
  return new SearchAttributesMissingError(
    `The Temporal cluster has no ${AgentStatusKey.name} search attribute. Register them (${commands}) or create the AgentClient with searchAttributes: false`,
  );
}

/** A run's question as text, or as named inputs for the config's signature (`"context, question -> answer"`). */
export type AgentQuery = string | Record<string, unknown>;

export function queryText(query: AgentQuery, config: ResolvedConfig, inputSchema?: z.ZodType): string {
  if (typeof query === 'string') {
    if (query.trim() === '') throw new InvalidConfigError('The query must be a non-empty string');
    return query;
  }
  if (inputSchema) {
    const parsed = inputSchema.safeParse(query);
    if (!parsed.success) throw new InvalidConfigError(`Invalid inputs: ${formatZodIssues(parsed.error.issues)}`);
    if (!config.output.signature) {
      return Object.entries(parsed.data as Record<string, unknown>)
        .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('\n');
    }
  }
  const signature = config.output.signature ? parseSignature(config.output.signature) : undefined;
  if (!signature || typeof signature === 'string') {
    throw new InvalidConfigError(
      'A query given as named inputs needs a signature in the config or an inputSchema, e.g. "context, question -> answer"',
    );
  }
  const rendered = renderInputs(signature, query);
  if (typeof rendered !== 'string')
    throw new InvalidConfigError(`Missing signature inputs: ${rendered.missing.join(', ')}`);
  return rendered;
}

export function toRunError(error: unknown, workflowId: string): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) {
    const trace = cause.details?.[0] as ReActTrace | undefined;
    return new AgentRunError(cause.message, workflowId, cause.type ?? undefined, trace);
  }
  return new AgentRunError(cause?.message ?? error.message, workflowId, undefined, undefined);
}
