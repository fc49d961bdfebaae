/**
 * P6: `npm start` to the demo's first step, with the Temporal CLI already provisioned. Spawns the real command in the
 * project folder and stops the clock at the first "[step 1]" line; each sample is a fresh `npm start`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { now } from './child';
import { percentile } from './scenario';

export interface StartupResult {
  samples: number;
  secondsToFirstStep: number[];
  medianSeconds: number;
}

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn('npm', ['start', '--silent'], {
      cwd: path.resolve(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let firstStep: number | undefined;
    let output = '';
    const watch = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4000);
      if (firstStep === undefined && output.includes('[step 1]')) firstStep = (now() - started) / 1000;
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    // A start that hangs must not hang the benchmark: give up after two minutes.
    const timer = setTimeout(() => child.kill('SIGINT'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && firstStep !== undefined) resolve(firstStep);
      else reject(new Error(`npm start exited with ${code} before its first step: ${output.slice(-500)}`));
    });
  });
}

export async function measureStartup(samples: number): Promise<StartupResult> {
  const secondsToFirstStep: number[] = [];
  for (let i = 0; i < samples; i++) secondsToFirstStep.push(await once());
  return { samples, secondsToFirstStep, medianSeconds: percentile(secondsToFirstStep, 50) };
}
