/**
 * Patterns the loop refuses to run. Inside a workflow task a regex with catastrophic backtracking can spin for
 * minutes on a short input, and the task (and every worker that retries it) dies with it. The check is conservative:
 * any repeated group that itself contains a quantifier or an alternation is refused, safe cases included.
 */

/** Whether the text at `index` starts a quantifier that repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1). */
function repeatsAt(pattern: string, index: number): boolean {
  const char = pattern[index];
  if (char === '*' || char === '+') return true;
  if (char !== '{') return false;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
  if (!match) return false;
  if (match[2] === undefined) return Number(match[1]) > 1;
  return match[3] === '' || Number(match[3]) > 1;
}

/** Why a regex could backtrack catastrophically, or null when its shape is safe. */
export function regexRisk(pattern: string): string | null {
  // One frame per open group: whether it holds a quantifier or an alternation so far.
  const groups: Array<{ quantified: boolean; alternation: boolean }> = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      index++; // an escaped character is a literal (or a class like \d): nothing to track
      continue;
    }
    if (char === '[') {
      // Skip the character class; `]` right after `[` or `[^` is a literal.
      index++;
      if (pattern[index] === '^') index++;
      if (pattern[index] === ']') index++;
      while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
      continue;
    }
    if (char === '(') {
      groups.push({ quantified: false, alternation: false });
      continue;
    }
    const top = groups[groups.length - 1];
    if (char === '|' && top) top.alternation = true;
    // `?` right after `(` opens a group kind (`(?:`, `(?=`), not a quantifier; elsewhere it may repeat nothing, which
    // inside a repeated group is as ambiguous as any other quantifier.
    if (char === '?' && pattern[index - 1] === '(') continue;
    if (repeatsAt(pattern, index) || char === '?') {
      if (top) top.quantified = true;
      continue;
    }
    if (char === ')') {
      const closed = groups.pop();
      if (!closed) continue;
      if (repeatsAt(pattern, index + 1) && (closed.quantified || closed.alternation)) {
        return `"${pattern}" repeats a group that itself ${closed.quantified ? 'repeats' : 'has alternatives'}, which can take exponential time`;
      }
      // A group that contains a quantifier makes its parent contain one too.
      const parent = groups[groups.length - 1];
      if (parent && (closed.quantified || repeatsAt(pattern, index + 1))) parent.quantified = true;
    }
  }
  return null;
}

/** Every `pattern` (and `patternProperties` key) in a JSON Schema, wherever it is nested. */
export function schemaPatterns(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(schemaPatterns);
  if (schema === null || typeof schema !== 'object') return [];
  const record = schema as Record<string, unknown>;
  const own = typeof record.pattern === 'string' ? [record.pattern] : [];
  const keys =
    record.patternProperties !== null && typeof record.patternProperties === 'object'
      ? Object.keys(record.patternProperties)
      : [];
  return [...own, ...keys, ...Object.values(record).flatMap(schemaPatterns)];
}
