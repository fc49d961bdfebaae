import { BUDGET_APPROVERS } from '../../shared/budget';
import type { ResolvedConfig } from '../../shared/config';
import type { ToolCatalog } from '../../shared/tool-protocol';
import { waivedMandatoryTools } from '../people/confirmation';

/** Edit distance between two short names (case-insensitive), for "did you mean". */
function distance(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let previous = Array.from({ length: y.length + 1 }, (_, index) => index);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + Number(x[i - 1] !== y[j - 1]),
      );
    }
    previous = current;
  }
  return previous[y.length] ?? 0;
}

/** Names in `names` that are not tools of this run, each with the closest tool when it is a likely typo. */
function unknownNames(names: readonly string[], known: readonly string[]): string[] {
  return names
    .filter((name) => !known.includes(name))
    .map((name) => {
      const close = known
        .filter((candidate) => distance(candidate, name) <= 2)
        .sort((a, b) => distance(a, name) - distance(b, name))[0];
      return close ? `${name} (did you mean ${close}?)` : name;
    });
}

/**
 * What the run's config asks of tools the catalog says otherwise about, as the one-line reason the run is refused at
 * its start, or null: a waived mandatory confirmation, or confirmation settings that name no tool of the run (a typo
 * such as `--confirm calculater` would let the real tool run with no approval).
 */
export function catalogProblem(config: ResolvedConfig, catalog: ToolCatalog): string | null {
  if (catalog.unknown.length > 0) return `Unknown tools in config.tools: ${catalog.unknown.join(', ')}`;
  const waived = waivedMandatoryTools(catalog.tools, config);
  if (waived.length > 0) {
    return `approvals.skip cannot waive ${waived.join(', ')}: the tool's author requires a person to confirm every call (confirm: 'always')`;
  }
  const known = catalog.tools.map((tool) => tool.name);
  for (const field of ['require', 'skip'] as const) {
    const unknown = unknownNames(config.approvals[field], known);
    if (unknown.length > 0) return `approvals.${field} names tools this run does not have: ${unknown.join(', ')}`;
  }
  // A misspelt tool in `approvers` would let anyone decide the real one's calls.
  const unknownApproved = unknownNames(Object.keys(config.approvals.approvers), [...known, BUDGET_APPROVERS]);
  if (unknownApproved.length > 0)
    return `approvals.approvers names tools this run does not have: ${unknownApproved.join(', ')}`;
  return null;
}
