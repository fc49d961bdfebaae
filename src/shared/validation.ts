import type { z } from 'zod';

/** Renders zod issues on one line (`a.b: message; c: message`) for errors a person or a model must read. */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const where = path === '' ? '' : ` in ${path}`;
        return `unknown field${issue.keys.length > 1 ? 's' : ''}${where}: ${issue.keys.join(', ')}`;
      }
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
