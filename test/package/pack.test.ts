import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { ReActResult } from '../../src';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

describe('the packed package, installed into a scratch project', () => {
  let scratch: string | undefined;
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('defines a tool, adds the plugin to its own worker, starts a run and approves it using only the exports', async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'dra-scratch-'));
    // npm pack takes dist/ as `npm test` just built it, the way a publish would.
    await run('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: root });
    const tarball = (await readdir(scratch)).find((file) => file.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    await writeFile(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
    );
    // The scratch project's own dependencies are the ones a user adds next to ours; npm's cache already has them.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `./${tarball}`,
        '@temporalio/worker@1.24.0',
        '@temporalio/client@1.24.0',
        'zod@4',
      ],
      { cwd: scratch, maxBuffer: 16 * 1024 * 1024 },
    );
    await copyFile(path.join(__dirname, 'fixtures', 'scratch-agent.mjs'), path.join(scratch, 'agent.mjs'));
    const taskQueue = `scratch-${Date.now()}`;
    const { stdout } = await run(process.execPath, ['agent.mjs', inject('temporalAddress'), taskQueue], {
      cwd: scratch,
    });
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
      pending: Array<{ tool: string; args: unknown }>;
      applied: { tool: string; decision: string };
      result: ReActResult;
      sent: Array<{ to: string; body: string }>;
    };
    expect(report.pending).toMatchObject([{ tool: 'send_email', args: { to: 'bob', body: 'the report' } }]);
    expect(report.applied).toMatchObject({ tool: 'send_email', decision: 'approve' });
    expect(report.sent).toMatchObject([{ to: 'bob', body: 'the report' }]);
    expect(report.result).toMatchObject({
      success: true,
      terminationReason: 'success',
      finalAnswer: 'Done: the report went to bob.',
    });
    expect(report.result.trace.steps[0]).toMatchObject({ observation: 'sent to bob', decision: { kind: 'approve' } });
  }, 300_000);
});
