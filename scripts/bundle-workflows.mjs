// Part of `npm run build`: bundles the compiled workflows once, into dist/workflow-bundle.js, so a worker started
// from dist loads them instead of running webpack at every start (about 1.5 s and a few hundred MiB of worker memory).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
try {
  const { stockBundleOptions } = await import(path.join(dist, 'worker', 'workflow-bundle.js'));
  const { code } = await bundleWorkflowCode({
    ...stockBundleOptions(),
    logger: new DefaultLogger('WARN'),
  });
  // Every run evaluates the workflow modules again and keeps its own copy while cached: zod and its schemas were most
  // of both costs, so they stay on the client and the worker (issue 17). An import that drags them back fails here.
  const leaked = /node_modules\/zod\//.exec(code);
  if (leaked) throw new Error('zod reached the workflow bundle: a workflow module imports a value from a zod module');
  await writeFile(path.join(dist, 'workflow-bundle.js'), code);
} catch (error) {
  process.stderr.write(`bundle-workflows: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
