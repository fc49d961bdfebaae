import { describeCost, formatUsd, type ModelPrice, type RunCost } from './cost';

/* A run's cost as lines of text: what `durable-react-agent cost` prints and the inbox's run page shows. */

function priceText(price: ModelPrice | null): string {
  if (price === null) return 'no price';
  const cached = price.cachedInput !== undefined ? ` / $${price.cachedInput} cached` : '';
  return `$${price.input} in${cached} / $${price.output} out per 1M tokens`;
}

function nonZero(entries: Record<string, number>, labels: Record<string, string>): string {
  const parts = Object.entries(entries)
    .filter(([, value]) => value > 0)
    .map(([key, value]) => `${value} ${labels[key] ?? key}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

const ACTION_LABELS: Record<string, string> = {
  workflowStarts: 'run start(s)',
  childStarts: 'subagent start(s) ×2',
  activities: 'activities',
  activityRetries: 'activity retries',
  localActivityBatches: 'local-activity task(s)',
  localActivityRetries: 'local retries',
  timers: 'timer(s)',
  signals: 'signal(s)',
  updates: 'update(s)',
  searchAttributeUpserts: 'search-attribute upsert(s)',
};

const WASTE_LABELS: Record<string, string> = {
  retriedModelCalls: 'retried model call(s)',
  modelRetries: 'model attempts repeated',
  retriedToolCalls: 'retried tool call(s)',
  toolRetries: 'tool attempts repeated',
  discardedRunAheadResults: 'run-ahead result(s) not used',
};

/** The ledger as lines: the total, then models, tokens, tools, engine actions, waste and subagents. */
export function costReport(cost: RunCost): string[] {
  const { usage } = cost;
  const cached = usage.cachedPromptTokens ? ` (${usage.cachedPromptTokens} cached)` : '';
  const lines = [
    `Total: ${describeCost(cost)}`,
    ...Object.entries(cost.models).map(([model, price]) => `Model ${model}: ${priceText(price)}`),
    `Tokens: ${usage.promptTokens} prompt${cached}, ${usage.completionTokens} completion` +
      (cost.unpricedTokens > 0 ? `; ${cost.unpricedTokens} with no price (money unknown, not $0)` : ''),
  ];
  const calls = cost.calls.map(
    (call) =>
      `  ${call.kind === 'final_answer' ? 'forced final answer · after step' : `${call.kind} · step`} ` +
      `${call.iteration}: ${call.usage.totalTokens} tokens, ${formatUsd(call.usd)}` +
      (call.attempts > 1 ? `, ${call.attempts} attempts` : ''),
  );
  if (calls.length > 0) lines.push(`Model calls of this run (${calls.length}):`, ...calls);
  const tools = Object.entries(cost.tools).map(
    ([tool, time]) =>
      `  ${tool}: ${time.calls} call(s), ${time.ms} ms${time.retries > 0 ? `, ${time.retries} retries` : ''}`,
  );
  if (tools.length > 0) lines.push('Tool time:', ...tools);
  lines.push(
    `Engine actions: ${cost.engineActionsTotal} = ${nonZero({ ...cost.engineActions }, ACTION_LABELS)}`,
    '  (queries, heartbeats and rejected updates are billed too but leave nothing in the run to count)',
    `Wasted: ${nonZero({ ...cost.wasted }, WASTE_LABELS)}`,
  );
  if (cost.subagents.length > 0) lines.push(`Subagents summed in: ${cost.subagents.join(', ')}`);
  return lines;
}
