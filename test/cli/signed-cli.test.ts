import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { AuditEntry } from '../../src/client/audit';
import { useHarness, waitForPending } from '../support/harness';
import { testSigningKeys } from '../support/signing-keys';

const CLI = path.resolve(__dirname, '../../dist/cli/main.js');
const keys = testSigningKeys();
const harness = useHarness({ approvalKeys: keys.approvalKeys });

/** Runs the built CLI against the suite's server, as `AGENT_IDENTITY` with `env`'s signing key. */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      AGENT_SIGNING_KEY_ID: undefined,
      AGENT_SIGNING_KEY_FILE: undefined,
      WORKER_APPROVAL_KEYS: undefined,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...output })));
}

const thought = 'The user asked for this record to go, so I delete it.';

describe('the CLI signs decisions and verifies the audit', () => {
  it('approve without a key is refused; with AGENT_SIGNING_KEY_* it runs the call; audit --verify says who signed', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'delete_record', args: { id: 'k1' } }] }, { answer: 'deleted k1' }],
      'q',
      { approvals: { requireSigned: true } },
    );
    await waitForPending(harness, run.workflowId);

    const unsigned = await cli(['approve', run.workflowId, '--as', 'alice']);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toBe(
      'error: Unsigned decision refused: call c1-1 (delete_record) needs a signed decision\n',
    );
    const aliceKey = { AGENT_SIGNING_KEY_ID: 'alice-1', AGENT_SIGNING_KEY_FILE: keys.files.alice };
    const signed = await cli(['approve', run.workflowId, '--as', 'alice'], aliceKey);
    expect(signed).toMatchObject({ code: 0, stdout: 'approved c1-1 (delete_record)\n' });
    await run.result();

    const audit = await cli(['audit', run.workflowId, '--verify'], { WORKER_APPROVAL_KEYS: keys.files.keySet });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/alice via cli .* approve c1-1 .*SIGNED by alice \(alice-1\): valid\n$/);
    const json = await cli(['audit', run.workflowId, '--verify', '--json', '--keys', keys.files.keySet]);
    expect((JSON.parse(json.stdout) as AuditEntry[]).map((entry) => entry.verification)).toEqual([
      { signed: true, valid: true, keyId: 'alice-1', approver: 'alice' },
    ]);
    // Half a key configuration is a mistake to name, not a reason to send unsigned.
    const halfKey = await cli(['approve', run.workflowId], { AGENT_SIGNING_KEY_ID: 'alice-1' });
    expect(halfKey).toMatchObject({
      code: 2,
      stderr: 'error: set both AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE to sign decisions\n',
    });
    const noKeys = await cli(['audit', run.workflowId, '--verify']);
    expect(noKeys).toMatchObject({ code: 2 });
    expect(noKeys.stderr).toContain('audit --verify needs the verification keys');
  });
});
