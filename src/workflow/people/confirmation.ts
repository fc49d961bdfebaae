import type { ConfirmationPolicy, ConfirmationRule } from '../../shared/approvals';
import type { ResolvedConfig } from '../../shared/config';

function valueAt(args: unknown, dottedPath: string): unknown {
  let value: unknown = args;
  for (const key of dottedPath.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** POSIX normalisation without Node's `path` (not available in the sandbox): resolves `.`, `..` and `//`. */
export function normalizePath(input: string): string {
  const absolute = input.startsWith('/');
  const parts: string[] = [];
  for (const part of input.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part === '..' && absolute) continue;
    else parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

function isOutside(value: unknown, folder: string): boolean {
  if (typeof value !== 'string') return true; // cannot tell: ask
  const target = normalizePath(value);
  const base = normalizePath(folder);
  if (base === '.') return target.startsWith('/') || target === '..' || target.startsWith('../');
  return !(target === base || target.startsWith(`${base}/`));
}

/**
 * Whether the pattern matches, counting a pattern that cannot run as a match: when unsure, ask. The worker refuses
 * such patterns at start-up; this keeps one that got past it (a custom tool source) from failing every workflow task.
 */
function matchesOrUnsure(pattern: string, flags: string | undefined, value: string): boolean {
  try {
    return new RegExp(pattern, flags).test(value);
  } catch {
    return true;
  }
}

/** Whether a rule holds for these arguments. Missing or mistyped arguments count as holding: when unsure, ask. */
export function ruleHolds(rule: ConfirmationRule, args: unknown): boolean {
  if ('anyOf' in rule) return rule.anyOf.some((inner) => ruleHolds(inner, args));
  if ('allOf' in rule) return rule.allOf.every((inner) => ruleHolds(inner, args));
  const value = valueAt(args, rule.arg);
  switch (rule.when) {
    case 'path_outside':
      return isOutside(value, rule.folder);
    case 'greater_than':
      return typeof value !== 'number' || value > rule.value;
    case 'equals':
      return value === rule.value;
    case 'matches':
      return typeof value !== 'string' || matchesOrUnsure(rule.pattern, rule.flags, value);
  }
}

/**
 * Whether a call must wait for a person, from the tool's policy, the run's config and earlier `always` approvals.
 * A tool whose author declared `confirm: 'always'` cannot be waived by the config; only a person's own approve-always
 * lets its later calls through.
 */
export function needsConfirmation(
  tool: { name: string; confirm: ConfirmationPolicy },
  args: unknown,
  config: { approvals: Pick<ResolvedConfig['approvals'], 'require' | 'skip'> },
  alwaysApproved: readonly string[],
): boolean {
  if (alwaysApproved.includes(tool.name)) return false;
  if (tool.confirm === 'always') return true;
  if (config.approvals.skip.includes(tool.name)) return false;
  if (config.approvals.require.includes(tool.name)) return true;
  if (tool.confirm === 'never') return false;
  return ruleHolds(tool.confirm, args);
}

/** The tools a config tries to waive although their authors made confirmation mandatory (`confirm: 'always'`). */
export function waivedMandatoryTools(
  tools: Iterable<{ name: string; confirm: ConfirmationPolicy }>,
  config: { approvals: Pick<ResolvedConfig['approvals'], 'require' | 'skip'> },
): string[] {
  return [...tools]
    .filter((tool) => tool.confirm === 'always' && config.approvals.skip.includes(tool.name))
    .map((tool) => tool.name);
}
