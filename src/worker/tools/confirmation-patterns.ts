import type { ConfirmationPolicy, ConfirmationRule } from '../../shared/approvals';
import { linearPattern } from '../../shared/regex-safety';

/**
 * A confirmation policy whose `matches` rules the workflow can run on any argument in linear time, or the first
 * problem with one. Every tool passes here whatever built it (`defineTool`, a plain object given to the registry, an
 * MCP server's settings): an invalid pattern would otherwise fail every workflow task of the run, and a backtracking
 * one would pin the workflow thread.
 */
export function linearConfirmation(policy: ConfirmationPolicy): { policy: ConfirmationPolicy } | { problem: string } {
  if (typeof policy === 'string') return { policy };
  const checked = linearRule(policy);
  return 'problem' in checked ? checked : { policy: checked.rule };
}

function linearRule(rule: ConfirmationRule): { rule: ConfirmationRule } | { problem: string } {
  if ('anyOf' in rule || 'allOf' in rule) {
    const rules: ConfirmationRule[] = [];
    for (const inner of 'anyOf' in rule ? rule.anyOf : rule.allOf) {
      const checked = linearRule(inner);
      if ('problem' in checked) return checked;
      rules.push(checked.rule);
    }
    return { rule: 'anyOf' in rule ? { anyOf: rules } : { allOf: rules } };
  }
  if (rule.when !== 'matches') return { rule };
  const linear = linearPattern(rule.pattern, rule.flags);
  if ('problem' in linear) return linear;
  const { arg, when } = rule;
  return { rule: linear.flags === '' ? { when, arg, pattern: linear.pattern } : { when, arg, ...linear } };
}

/** The tool with its confirmation patterns in linear-time form; a pattern that cannot be is a start-up error. */
export function withLinearConfirmation<Tool extends { name: string; confirm?: ConfirmationPolicy }>(tool: Tool): Tool {
  if (tool.confirm === undefined) return tool;
  const checked = linearConfirmation(tool.confirm);
  if ('problem' in checked) {
    throw new TypeError(`Tool "${tool.name}" has a confirmation pattern that cannot be used: ${checked.problem}`);
  }
  return { ...tool, confirm: checked.policy };
}
