import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptedTurn } from '../testing/scripted-turn';
import type { Behaviour } from './behaviour';

/**
 * An accepted behaviour: what `replay-check --accept` saw the current code do with a recording, kept beside it so
 * later checks compare with it instead of with the recording (whose prompts and answers it keeps serving).
 */
export interface Baseline {
  version: 1;
  workflowId: string;
  acceptedAt: string;
  behaviour: Behaviour;
  /** The model's answers the accepted run got, call by call (from the recording or the fallback model). */
  turns: ScriptedTurn[];
}

/** Where a recording's baseline lives: `<dir>/<name>.expected.json`. */
export function baselinePath(dir: string, name: string): string {
  return path.join(dir, `${name.replace(/[^\w.-]+/g, '_')}.expected.json`);
}

/** The baseline at `file`, or null when there is none; a broken file is an error, not a silent re-baseline. */
export function readBaseline(file: string): Baseline | null {
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Baseline>;
  if (parsed.version !== 1 || !Array.isArray(parsed.behaviour?.steps) || !Array.isArray(parsed.turns))
    throw new Error(`${file} is not a replay-check baseline (version 1)`);
  return parsed as Baseline;
}

/** Writes the behaviour as the recording's accepted baseline. */
export function writeBaseline(file: string, workflowId: string, behaviour: Behaviour, turns: ScriptedTurn[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const baseline: Baseline = { version: 1, workflowId, acceptedAt: new Date().toISOString(), behaviour, turns };
  writeFileSync(file, `${JSON.stringify(baseline, null, 1)}\n`);
}
