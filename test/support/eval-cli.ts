import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SUITE, loadSuite } from '../../src/eval/suite';
import type { EvalTask } from '../../src/eval/suite';

/** Two tasks of the shipped suite (a tool call, a recovery) in a scratch folder, for the eval command's tests. */
export function twoTaskSuite(prefix: string): { dir: string; suiteFile: string; picked: EvalTask[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const picked = loadSuite(DEFAULT_SUITE).tasks.filter((task) => ['arith-product', 'recover-peru'].includes(task.id));
  const suiteFile = path.join(dir, 'suite.json');
  writeFileSync(suiteFile, JSON.stringify({ name: 'two tasks', tasks: picked }));
  return { dir, suiteFile, picked };
}

/** Runs the built CLI's `eval` with `args` as a child process, as a user would; resolves with its code and output. */
export async function runEvalCli(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../dist/cli/main.js'), 'eval', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
