/**
 * Each contender runs in its own Node process, so one's memory, garbage and event-loop load never lands on another's
 * figures. A child gets its job as JSON in argv[2], logs on stderr, and prints one JSON result line on stdout.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Runs `script` (a TypeScript file under bench/) with tsx and returns the JSON it printed. */
export function runChild<T>(script: string, job: object, label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, script), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) process.stderr.write(`  [${label}] ${line}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${label} exited with ${code}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${label} printed no JSON result: ${last.slice(0, 200)}`));
      }
    });
  });
}

/** A child's entry point: parses its job, prints the result, exits non-zero with the error on stderr. */
export function childMain<Job, Result>(work: (job: Job) => Promise<Result>): void {
  const job = JSON.parse(process.argv[2] ?? '{}') as Job;
  work(job).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/** Milliseconds since an arbitrary origin, with sub-millisecond resolution. */
export const now = (): number => performance.now();
