import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFromEnv } from '../../src/codec';
import { workflowSource } from '../../src/worker';

describe('where a worker takes its workflow code from', () => {
  let built: string;
  let sources: string;
  beforeAll(async () => {
    built = await mkdtemp(path.join(os.tmpdir(), 'dra-dist-'));
    sources = await mkdtemp(path.join(os.tmpdir(), 'dra-src-'));
    await writeFile(path.join(built, 'workflow-bundle.js'), '// bundle');
  });
  afterAll(async () => {
    await rm(built, { recursive: true, force: true });
    await rm(sources, { recursive: true, force: true });
  });

  it('loads the bundle npm run build made, and bundles at start where there is none', () => {
    expect(workflowSource({}, undefined, built)).toEqual({ workflowBundle: { codePath: path.join(built, 'workflow-bundle.js') } });
    expect(workflowSource({}, undefined, sources)).toEqual({ workflowsPath: path.join(sources, 'workflows') });
  });

  it('bundles at start when encryption, tracing plugins or workflow interceptors must be compiled in', () => {
    const encrypted = dataConverterFromEnv({ payloadEncryptionKeys: `k1:${Buffer.alloc(32, 1).toString('base64')}` });
    expect(workflowSource({}, encrypted, built)).toEqual({ workflowsPath: path.join(built, 'workflows') });
    expect(workflowSource({ workerOptions: { interceptors: { workflowModules: ['x'] } } }, undefined, built)).toHaveProperty('workflowsPath');
  });

  it('a bundle or workflows given by the caller win', () => {
    expect(workflowSource({ workflowBundle: { code: 'x' } }, undefined, built)).toEqual({ workflowBundle: { code: 'x' } });
    // Their own workflows come through workerOptions, which createAgentWorker spreads last: nothing may compete.
    expect(workflowSource({ workerOptions: { workflowsPath: '/app/workflows' } }, undefined, built)).toEqual({});
    expect(workflowSource({ workerOptions: { workflowBundle: { code: 'y' } } }, undefined, built)).toEqual({});
    expect(workflowSource({ workerOptions: { bundlerOptions: { ignoreModules: ['fs'] } } }, undefined, built)).toHaveProperty('workflowsPath');
  });
});
