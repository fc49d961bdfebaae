import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { resolveTemporalCli } from '../../src/dev/provision';
import { devServerTuningArgs } from '../../src/dev/tuning';
import { AgentPendingToolsKey, AgentStatusKey } from '../../src/shared/search-attributes';
import { stockBundleOptions } from '../../src/worker/workflow-bundle';
import { fileLogger, provideTestLogFile } from './sdk-log';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
  }
}

/** Starts one real Temporal dev server (the Temporal CLI) and bundles the workflows once for every test file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reportLog = provideTestLogFile(project);
  const executable = await resolveTemporalCli({ log: (line) => console.log(`[temporal-cli] ${line}`) });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: executable.type === 'existing-path' ? { type: 'existing-path', path: executable.path } : executable,
      ip: '127.0.0.1',
      ui: false,
      searchAttributes: [AgentStatusKey, AgentPendingToolsKey],
      log: { format: 'pretty', level: 'error' },
      // The CLI's start-up banner would otherwise land in the test output; the tuning is the embedded server's own.
      extraArgs: ['--output', 'none', ...devServerTuningArgs()],
    },
  });
  project.provide('temporalAddress', env.address);
  project.provide('temporalNamespace', env.namespace ?? 'default');
  project.provide('workflowBundlePath', await bundleForTests(project.getProvidedContext().testLogFile));
  return async () => {
    await env.teardown();
    reportLog();
  };
}

/** Bundles the workflows once and returns the bundle's path, for the harness's workers to share. */
export async function bundleForTests(logFile: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...stockBundleOptions(), logger: fileLogger(logFile) });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dra-bundle-'));
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await writeFile(bundlePath, code);
  return bundlePath;
}
