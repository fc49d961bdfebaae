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
      index = classEnd(pattern, index); // a class holds no group or quantifier
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

/*
 * Linear-time patterns. The worker turns on V8's fallback to its linear-time regex engine (see
 * src/worker/regex-engine.ts), which takes over from backtracking after a bounded number of steps: a pattern then
 * costs time proportional to its input, whatever its shape, `^a*a*a*a*$` (polynomial) included. V8's linear engine
 * runs no lookaround, no backreference and no `i`, `u` or `v` flag; a pattern that needs one would backtrack without
 * bound, so the patterns that run on model-controlled text (confirmation rules, schema patterns) must do without.
 */

/** Flags a linear-time pattern may carry (`i` is accepted by {@link linearPattern}, which spells it out). */
const LINEAR_FLAGS = new Set(['g', 'm', 's', 'y']);

/** Why V8's linear-time engine could not run this pattern (flags aside), or null when it can. */
function nonLinearSyntax(pattern: string): string | null {
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'uses a backreference';
      index++;
      continue;
    }
    if (char === '[') {
      index = classEnd(pattern, index);
      continue;
    }
    if (char === '(' && pattern[index + 1] === '?') {
      const kind = pattern.slice(index + 2, index + 4);
      if (kind.startsWith('=') || kind.startsWith('!') || kind === '<=' || kind === '<!') return 'uses a lookaround';
      if (/^\(\?[imsx-]+:/.test(pattern.slice(index))) return 'uses an inline modifier group';
    }
  }
  return null;
}

/**
 * The index of the `]` that closes the class opened at `start` (or the pattern's end). In JavaScript a `]` right after
 * `[` or `[^` closes the class (`[]` matches nothing, `[^]` anything): reading it as a literal would hide what follows.
 */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '^') index++;
  while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
  return index;
}

/**
 * Whether V8's linear-time engine refuses the pattern, asked of V8 itself: where the process has the engine's `l` flag
 * (a worker: src/worker/regex-engine.ts) this is exact (counts above 16 and the `d` flag are refused there too);
 * elsewhere (a client) it answers false and the checks above stand alone, to be repeated on the worker.
 */
function linearEngineRefuses(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, `${flags}l`);
    return false;
  } catch (error) {
    return !/Invalid flags/.test((error as Error).message);
  }
}

const isAsciiLetter = (char: string) => /^[A-Za-z]$/.test(char);
const otherCase = (char: string) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase());

/**
 * The length of the escape at `index` when `i` can be spelled out around it (`\x41`, `\u0041`, `\cJ`, a class like
 * `\d`, a control like `\n`, an escaped non-letter), else 0: an escape of another letter (`\xZZ` is `xZZ`, `\u{3}` is
 * `uuu`) would keep its letters in one case.
 */
function escapeLength(pattern: string, index: number): number {
  const rest = pattern.slice(index + 1);
  if (/^x[0-9a-fA-F]{2}/.test(rest)) return 4;
  if (/^u[0-9a-fA-F]{4}/.test(rest)) return 6;
  if (/^c[a-zA-Z]/.test(rest)) return 3;
  if (/^[dDwWsSbBnrtfv0]/.test(rest)) return 2;
  return rest !== '' && !isAsciiLetter(rest[0]!) ? 2 : 0;
}

/** Why `i` cannot be spelled out for this pattern, or null. */
function foldProblem(pattern: string): string | null {
  if ([...pattern].some((char) => char.charCodeAt(0) > 0x7f && /\p{L}/u.test(char))) {
    return 'has non-ASCII letters; spell out both cases ([éÉ]) without the flag';
  }
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char !== '[' && char !== '\\') continue;
    if (char === '\\') {
      const length = escapeLength(pattern, index);
      if (length === 0) return `has the escape ${pattern.slice(index, index + 2)}, which i cannot be spelled out for`;
      index += length - 1;
      continue;
    }
    const end = classEnd(pattern, index);
    for (let inner = index + 1; inner < end; inner++) {
      if (pattern[inner] !== '\\') continue;
      const length = escapeLength(pattern, inner);
      if (length === 0) return `has the escape ${pattern.slice(inner, inner + 2)}, which i cannot be spelled out for`;
      // An escape as a range's end (`[\x41-Z]`) would need the range's letters counted one by one.
      if (pattern[inner - 1] === '-' || pattern[inner + length] === '-') {
        return 'has an escape at the end of a range; write the range with plain characters';
      }
      inner += length - 1;
    }
    index = end;
  }
  return null;
}

/** A character class with both cases of every ASCII letter it names, ranges included. */
function foldClass(body: string): string {
  const added: string[] = [];
  for (let index = 0; index < body.length; index++) {
    if (body[index] === '\\') {
      index += escapeLength(body, index) - 1;
      continue;
    }
    const from = body[index]!;
    const to = body[index + 1] === '-' && index + 2 < body.length ? body[index + 2]! : from;
    if (to !== from) index += 2;
    for (const [low, high] of [
      ['a', 'z'],
      ['A', 'Z'],
    ] as const) {
      const start = from > low ? from : low;
      const end = to < high ? to : high;
      if (start <= end) added.push(start === end ? otherCase(start) : `${otherCase(start)}-${otherCase(end)}`);
    }
  }
  return body + added.join('');
}

/** The pattern with `i` spelled out for ASCII letters (`drop` → `[dD][rR][oO][pP]`), which the linear engine runs. */
function foldCase(pattern: string): string {
  let out = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '\\') {
      const length = escapeLength(pattern, index);
      out += pattern.slice(index, index + length);
      index += length - 1;
    } else if (char === '[') {
      const end = classEnd(pattern, index);
      const negated = pattern[index + 1] === '^';
      const body = pattern.slice(index + (negated ? 2 : 1), end);
      out += `[${negated ? '^' : ''}${foldClass(body)}]`;
      index = end;
    } else if (char === '(' && pattern.startsWith('?<', index + 1) && !/^\(\?<[=!]/.test(pattern.slice(index))) {
      const close = pattern.indexOf('>', index);
      out += pattern.slice(index, close + 1); // a group's name is not text to match
      index = close;
    } else if (isAsciiLetter(char)) {
      out += `[${char}${otherCase(char)}]`;
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * A pattern in the form the worker's linear-time engine runs: compiled to check it, with `i` spelled out, or the
 * reason it cannot be (invalid, a nested repeat, a lookaround, a backreference, a `u` flag, or `i` with non-ASCII
 * letters). Used on every confirmation rule and schema pattern before any model-controlled text meets it.
 */
export function linearPattern(pattern: string, flags = ''): { pattern: string; flags: string } | { problem: string } {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return { problem: `"${pattern}" is not a valid regular expression (${(error as Error).message})` };
  }
  const risk = regexRisk(pattern);
  if (risk !== null) return { problem: `${risk}; rewrite it without a repeated group that repeats` };
  const syntax = nonLinearSyntax(pattern);
  if (syntax !== null) {
    return { problem: `"${pattern}" ${syntax}, which cannot run in linear time; match without it` };
  }
  const unsupported = [...flags].filter((flag) => flag !== 'i' && !LINEAR_FLAGS.has(flag));
  if (unsupported.length > 0) {
    return { problem: `"${pattern}" uses the flag ${unsupported.join(', ')}, which cannot run in linear time` };
  }
  let linear = { pattern, flags };
  if (flags.includes('i')) {
    const problem = foldProblem(pattern);
    if (problem !== null) return { problem: `"${pattern}" with flag i ${problem}` };
    linear = { pattern: foldCase(pattern), flags: flags.replace('i', '') };
  }
  if (linearEngineRefuses(linear.pattern, linear.flags)) {
    return {
      problem: `"${pattern}" cannot run in linear time (V8's linear engine takes no count above 16, such as {1,64}: use + or * and a length limit)`,
    };
  }
  return linear;
}
