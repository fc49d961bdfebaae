import type { Client } from '@temporalio/client';
import { validateAgentConfig } from '../shared/agent-config';
import { canonicalJson } from '../shared/canonical';
import { isConfigGroup, type ResolvedConfig } from '../shared/config';
import type { AgentWorkflowInput } from '../shared/types';
import { AttachRefusedError } from './errors';
import { firstRunInput } from './run-chain';

// `ifRunning: 'attach'` hands back a run someone else may have started: a service that retries with its business key
// must not get a run whose approvals and limits are not the ones it asked for, so the run is compared with the
// request before its handle is returned.

/** The run a start with `ifRunning: 'attach'` would have started. */
export interface AttachRequest {
  workflowType: string;
  taskQueue: string;
  query: string;
  config: ResolvedConfig;
}

/**
 * Throws AttachRefusedError when the run now holding `workflowId` was started with another request than `request`.
 * The running run is read from its chain's first start event (what it was started with, whatever it has done
 * since); a run this very start began compares equal with itself.
 */
export async function checkAttached(client: Client, workflowId: string, request: AttachRequest): Promise<void> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const running = await firstRunInput(client, workflowId);
  const differences = attachDifferences(request, {
    workflowType: description.type,
    taskQueue: description.taskQueue,
    input: running,
  });
  if (differences.length === 0) return;
  throw new AttachRefusedError(
    `${workflowId} is already running, started with another ${describeDifferences(differences)}; ifRunning: 'attach' ` +
      'returns only a run started with the same query, config, workflow type and task queue. Start a distinct run ' +
      'under another workflowId, or wait until this one closes',
    workflowId,
    differences,
  );
}

/**
 * What differs between the request and the running run. The query is compared with runs of whitespace collapsed and
 * the ends trimmed (a retry that re-wraps the same text, or adds a trailing newline, is the same request; the model
 * reads the words, not the layout); the config is compared resolved, field by field, so a default spelled out and
 * one left implicit are equal; type and task queue must match exactly.
 */
function attachDifferences(
  request: AttachRequest,
  running: { workflowType: string; taskQueue: string; input: AgentWorkflowInput | undefined },
): string[] {
  const differences: string[] = [];
  if (running.workflowType !== request.workflowType) differences.push('workflowType');
  if (running.taskQueue !== request.taskQueue) differences.push('taskQueue');
  if (sameText(running.input?.query) !== sameText(request.query)) differences.push('query');
  if (running.input?.seed !== undefined) differences.push('seed');
  const stored = validateAgentConfig(running.input?.config ?? {});
  if (!stored.ok) return [...differences, 'config'];
  const [before, after] = [leaves(stored.config), leaves(request.config)];
  for (const field of [...new Set([...before.keys(), ...after.keys()])].sort())
    if (canonicalJson(before.get(field)) !== canonicalJson(after.get(field))) differences.push(`config.${field}`);
  return differences;
}

/** A config's fields by the names people write: `limits.maxIterations`, `model`. */
function leaves(config: ResolvedConfig): Map<string, unknown> {
  return new Map(
    Object.entries(config).flatMap(([key, value]) =>
      isConfigGroup(key)
        ? Object.entries(value as object).map(([field, leaf]): [string, unknown] => [`${key}.${field}`, leaf])
        : [[key, value] as [string, unknown]],
    ),
  );
}

function sameText(query: unknown): string {
  return typeof query === 'string' ? query.replace(/\s+/g, ' ').trim() : '';
}

/** `query and config (limits.maxIterations, approvals.require)`: the parts that differ, for the one-line message. */
function describeDifferences(differences: string[]): string {
  const configFields = differences.filter((part) => part.startsWith('config.')).map((part) => part.slice(7));
  const parts = differences
    .filter((part) => !part.startsWith('config'))
    .map((part) => (part === 'seed' ? 'seed (it is a fork or continuation)' : part));
  if (differences.includes('config')) parts.push('config');
  if (configFields.length > 0) parts.push(`config (${configFields.join(', ')})`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
}
