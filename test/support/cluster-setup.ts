import type { TestProject } from 'vitest/node';
import { startCluster } from '../../src/dev/cluster/cluster';
import { bundleForTests } from './global-setup';
import { provideTestLogFile } from './sdk-log';
import { freePort } from '../../src/testing/free-port';

/**
 * The cluster project's server: a throwaway production-shape cluster (PostgreSQL, the four Temporal services as
 * separate processes, 4 history shards), provided to the test files exactly as the dev server is to the others.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const reportLog = provideTestLogFile(project);
  const cluster = await startCluster({
    shards: 4,
    port: await freePort(),
    log: (line) => console.log(`[cluster] ${line}`),
  });
  try {
    project.provide('workflowBundlePath', await bundleForTests(project.getProvidedContext().testLogFile));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  project.provide('temporalAddress', cluster.address);
  project.provide('temporalNamespace', cluster.namespace);
  return () => cluster.stop().finally(reportLog);
}
