import type { z } from 'zod';

/** Unknown keys an error message names before it only counts them. */
export const MAX_LISTED_KEYS = 10;

/** Renders zod issues on one line (`a.b: message; c: message`) for errors a person or a model must read. */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const where = path === '' ? '' : ` in ${path}`;
        // A hostile payload can carry thousands of keys: name a few, count the rest.
        const shown = issue.keys.slice(0, MAX_LISTED_KEYS).join(', ');
        const more = issue.keys.length > MAX_LISTED_KEYS ? ` and ${issue.keys.length - MAX_LISTED_KEYS} more` : '';
        return `unknown field${issue.keys.length > 1 ? 's' : ''}${where}: ${shown}${more}`;
      }
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
