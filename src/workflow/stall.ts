import { argsHash } from '../shared/canonical';

/** Canonical form of tool arguments: keys sorted, strings trimmed, whitespace collapsed and lower-cased. */
export function normalizeArgs(value: unknown): string {
  return JSON.stringify(canonical(value));
}

function canonical(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ').toLowerCase();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item)]));
  }
  return value ?? null;
}

/** Identity of a call for stall detection (rules 1 compares these one call at a time). */
export function callSignature(tool: string, args: unknown): string {
  return `${tool} ${normalizeArgs(args)}`;
}

/** How many calls at the end of `signatures` are identical to the last one. */
export function trailingRepeats(signatures: readonly string[]): number {
  const last = signatures[signatures.length - 1];
  if (last === undefined) return 0;
  let count = 0;
  for (let index = signatures.length - 1; index >= 0 && signatures[index] === last; index--) count++;
  return count;
}

/**
 * Identity of one iteration (rules 2): the set of its calls' signatures, so order and duplicates within a reply do
 * not matter. Hashed, so what continue-as-new carries stays small however many calls or how large the arguments.
 */
export function iterationSignature(callSignatures: readonly string[]): string {
  return argsHash([...new Set(callSignatures)].sort());
}

/** The termination detail of a stall (rules 2): which tools, and for how many iterations. */
export function stallDetail(tools: readonly string[], iterations: number): string {
  const names = [...new Set(tools)];
  const list =
    names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? 'a tool');
  return `${list} ${names.length > 1 ? 'were' : 'was'} called with the same arguments in ${iterations} iterations in a row`;
}
