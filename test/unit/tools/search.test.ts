import { describe, it, expect } from 'vitest';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { createSearchTool } from '../../../src/worker/tools/builtin/search';
import type { SearchHit } from '../../../src/worker/tools/builtin/search';
import type { AnyToolDefinition } from '../../../src/worker/tools/define-tool';
import { makeFixture, runTool } from './helpers';

type SearchOutput = { query: string; totalMatches: number; hits: SearchHit[] };

/** Runs a search that is expected to find something; a "No documents match" string fails with its own text. */
async function searchFor(tool: AnyToolDefinition, args: unknown): Promise<SearchOutput> {
  const output = await runTool(tool, args);
  if (typeof output === 'string') throw new Error(`expected hits, got: ${output}`);
  return output as SearchOutput;
}

const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(10);

async function docsFixture(): Promise<string> {
  return makeFixture({
    'guide/retries.md':
      `# Retry policies\n\n${filler}\n` +
      'Activities are retried with exponential backoff until maximumAttempts is reached.\n',
    'guide/signals.md': '# Signals\n\nA signal delivers a message to a running workflow. Retries are not involved.\n',
    'notes.txt': 'Grocery list: apples, bread, coffee.\n',
    'data/cities.json': JSON.stringify({ cities: ['Lisbon', 'Porto', 'Coimbra'] }),
    'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    'code.ts': 'export const backoff = "exponential";\n',
    'node_modules/pkg/readme.md': '# Exponential backoff in a dependency\n',
  });
}

describe('search tool and credential files', () => {
  it('never indexes .env files or keys, even with a searchable extension', async () => {
    const root = await makeFixture({
      'guide/tokens.md': '# Tokens\n\nRotate the deploy token every month.\n',
      '.env.md': '# Deploy token\n\nDEPLOY_TOKEN=sk-deploy-token-secret\n',
      'keys/id_rsa.txt': 'deploy token private key\n',
      '.git/notes.md': '# Deploy token notes\n',
    });
    try {
      const output = await searchFor(createSearchTool({ root }), { query: 'deploy token' });
      expect(output.hits.map((hit) => hit.path)).toEqual(['guide/tokens.md']);
      expect(JSON.stringify(output)).not.toContain('sk-deploy-token-secret');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('search tool', () => {
  it('ranks the document about the query first, with its title and a snippet around the match', async () => {
    const root = await docsFixture();
    const tool = createSearchTool({ root });
    const output = await searchFor(tool, { query: 'exponential backoff' });
    expect(output.hits[0]).toMatchObject({ path: 'guide/retries.md', title: 'Retry policies' });
    expect(output.hits[0]?.score).toBeGreaterThan(0);
    expect(output.hits[0]?.snippet).toContain('exponential backoff');
    expect(output.hits[0]?.snippet.startsWith('…')).toBe(true);
    expect(output.hits[0]?.snippet.length).toBeLessThanOrEqual(202);
    // node_modules and non-document extensions are not indexed.
    expect(output.hits.map((hit) => hit.path)).toEqual(['guide/retries.md']);
    await rm(root, { recursive: true, force: true });
  });

  it('uses the file name as title when there is no heading, and honours limit', async () => {
    const root = await docsFixture();
    const tool = createSearchTool({ root });
    const cities = await searchFor(tool, { query: 'Porto' });
    expect(cities.hits).toEqual([expect.objectContaining({ path: 'data/cities.json', title: 'cities.json' })]);
    const retries = await searchFor(tool, { query: 'retries signal workflow', limit: 1 });
    expect(retries.hits).toHaveLength(1);
    expect(retries.totalMatches).toBeGreaterThan(1);
    await rm(root, { recursive: true, force: true });
  });

  it('says how many documents it searched when nothing matches', async () => {
    const root = await docsFixture();
    const output = await runTool(createSearchTool({ root }), { query: 'zzyzx' });
    expect(output).toBe('No documents match "zzyzx" in 4 indexed documents.');
    await rm(root, { recursive: true, force: true });
  });

  it('builds the index once per tool instance', async () => {
    const root = await docsFixture();
    const tool = createSearchTool({ root });
    await runTool(tool, { query: 'coffee' });
    await rm(path.join(root, 'notes.txt'));
    const output = await searchFor(tool, { query: 'coffee' });
    expect(output.hits[0]?.path).toBe('notes.txt');
    await rm(root, { recursive: true, force: true });
  });

  it('validates limit', () => {
    const tool = createSearchTool({ root: '.' });
    expect(tool.schema.safeParse({ query: 'x', limit: 21 }).success).toBe(false);
    expect(tool.schema.safeParse({ query: 'x', limit: 0 }).success).toBe(false);
    expect(tool.schema.parse({ query: 'x' })).toEqual({ query: 'x', limit: 5 });
  });

  it('reports a missing root clearly and retries the build on the next call', async () => {
    const root = await docsFixture();
    const missing = path.join(root, 'later');
    const tool = createSearchTool({ root: missing });
    await expect(runTool(tool, { query: 'x' })).rejects.toThrow(`the tool's root folder "${missing}" does not exist`);
    await mkdir(missing);
    await writeFile(path.join(missing, 'late.md'), '# Late\n\nThis arrived after the first call.\n');
    const output = await searchFor(tool, { query: 'arrived' });
    expect(output.hits[0]?.path).toBe('late.md');
    await rm(root, { recursive: true, force: true });
  });
});
