import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLYGLOT_MODULE_DIR, polyglotCacheDir, polyglotSourceHash } from '../../src/dev/go-polyglot';

describe('the Go programs are cached by their sources', () => {
  it('a change to a .go file, go.mod or go.sum is a new cache folder; other files are not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dra-go-hash-'));
    mkdirSync(path.join(dir, 'cmd', 'tool'), { recursive: true });
    writeFileSync(path.join(dir, 'go.mod'), 'module example\n');
    writeFileSync(path.join(dir, 'go.sum'), '');
    writeFileSync(path.join(dir, 'cmd', 'tool', 'main.go'), 'package main\n');
    const first = await polyglotSourceHash(dir);

    writeFileSync(path.join(dir, 'README.md'), 'notes');
    expect(await polyglotSourceHash(dir)).toBe(first);
    writeFileSync(path.join(dir, 'cmd', 'tool', 'main.go'), 'package main\n\nfunc main() {}\n');
    const edited = await polyglotSourceHash(dir);
    expect(edited).not.toBe(first);
    writeFileSync(path.join(dir, 'go.sum'), 'example.com/dep v1.0.0 h1:abc=\n');
    expect(await polyglotSourceHash(dir)).not.toBe(edited);
  });

  it("lives in the project's cache folder, named by this checkout's sources", async () => {
    const dir = await polyglotCacheDir({ XDG_CACHE_HOME: '/cache' });
    expect(dir).toBe(`/cache/durable-react-agent/go-polyglot-${await polyglotSourceHash(POLYGLOT_MODULE_DIR)}`);
    expect(path.basename(dir)).toMatch(/^go-polyglot-[0-9a-f]{16}$/);
  });
});
