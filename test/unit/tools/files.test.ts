import { execFileSync } from 'node:child_process';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ToolInputError } from '../../../src';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools, DEFAULT_READ_MAX_BYTES } from '../../../src/worker/tools/builtin/files';
import { createBuiltinTools } from '../../../src/worker/tools/builtin';
import {
  PathNotFoundError,
  PathOutsideRootError,
  SecretPathError,
} from '../../../src/worker/tools/builtin/file-access';
import { makeFixture, runTool } from './helpers';

const MAIN_TS = 'export function main() {\n  // TODO: wire the worker\n  return 42;\n}\n';
const UTIL_TS = 'export const todo = "lowercase todo";\n';

let root: string;
let outside: string;
let tools: ReturnType<typeof createFileTools>;

beforeAll(async () => {
  root = await makeFixture({
    'README.md': '# Project\n\nHello from the root.\n',
    'src/main.ts': MAIN_TS,
    'src/util.ts': UTIL_TS,
    'docs/big.txt': 'x'.repeat(DEFAULT_READ_MAX_BYTES + 1),
    'logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    '.git/config': 'TODO in git metadata\n',
    '.env': 'OPENAI_API_KEY=sk-TODO-secret\n',
    '.env.local': 'TODO=local secret\n',
    'config/.npmrc': '//registry.npmjs.org/:_authToken=TODO\n',
    'config/.netrc': 'machine example.com password TODO\n',
    'keys/server.pem': 'TODO pem\n',
    'keys/server.KEY': 'TODO key\n',
    'keys/id_rsa': 'TODO rsa\n',
    'keys/id_ed25519.pub': 'TODO ed25519\n',
    'keys/store.p12': 'TODO p12\n',
    'keys/store.pfx': 'TODO pfx\n',
  });
  outside = await mkdtemp(path.join(os.tmpdir(), 'dra-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'TODO top secret\n');
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
  await symlink(outside, path.join(root, 'escape-dir'));
  await symlink(path.join(root, 'README.md'), path.join(root, 'readme-link.md'));
  await symlink(path.join(root, '.env'), path.join(root, 'innocent.txt'));
  tools = createFileTools({ root });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('read_file', () => {
  it('reads a text file inside the root, by relative or absolute path', async () => {
    await expect(runTool(tools.readFile, { path: 'README.md' })).resolves.toBe('# Project\n\nHello from the root.\n');
    await expect(runTool(tools.readFile, { path: path.join(root, 'src', 'main.ts') })).resolves.toContain('return 42');
    await expect(runTool(tools.readFile, { path: 'src/../README.md' })).resolves.toContain('Hello');
  });

  it('follows a symlink that stays inside the root', async () => {
    await expect(runTool(tools.readFile, { path: 'readme-link.md' })).resolves.toContain('Hello');
  });

  it.each([['../etc/passwd'], ['/etc/passwd'], ['src/../../outside.txt'], ['escape.txt'], ['escape-dir/secret.txt']])(
    'refuses %s as outside the root',
    async (requested) => {
      const call = runTool(tools.readFile, { path: requested });
      await expect(call).rejects.toBeInstanceOf(PathOutsideRootError);
      await expect(call).rejects.toThrow(
        `path "${requested}" is outside the allowed root; use a path relative to the root`,
      );
    },
  );

  it('refuses the outside folder by absolute path', async () => {
    await expect(runTool(tools.readFile, { path: path.join(outside, 'secret.txt') })).rejects.toThrow(
      PathOutsideRootError,
    );
  });

  it('reports a missing file without a raw ENOENT', async () => {
    const call = runTool(tools.readFile, { path: 'nope.md' });
    await expect(call).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(call).rejects.toThrow(/^no such file or directory: "nope.md"$/);
  });

  it('refuses binary files, directories and files over maxBytes with actionable messages', async () => {
    await expect(runTool(tools.readFile, { path: 'logo.png' })).rejects.toThrow(
      'file "logo.png" is binary, not UTF-8 text; it cannot be read',
    );
    await expect(runTool(tools.readFile, { path: 'src' })).rejects.toThrow(
      '"src" is a directory; use list_directory to see its contents',
    );
    await expect(runTool(tools.readFile, { path: 'docs/big.txt' })).rejects.toThrow(
      /^file "docs\/big.txt" is 97\.7 KiB, more than maxBytes \(100000\); pass a larger maxBytes/,
    );
    await expect(runTool(tools.readFile, { path: 'docs/big.txt', maxBytes: 200_000 })).resolves.toHaveLength(
      DEFAULT_READ_MAX_BYTES + 1,
    );
  });
});

describe('credential files', () => {
  it.each([
    ['.env'],
    ['.env.local'],
    ['./.ENV'],
    ['config/.npmrc'],
    ['config/.netrc'],
    ['keys/server.pem'],
    ['keys/server.KEY'],
    ['keys/id_rsa'],
    ['keys/id_ed25519.pub'],
    ['keys/store.p12'],
    ['keys/store.pfx'],
    ['.git/config'],
    ['innocent.txt'],
  ])('read_file refuses %s with a message the model can act on', async (requested) => {
    const call = runTool(tools.readFile, { path: requested });
    await expect(call).rejects.toBeInstanceOf(SecretPathError);
    await expect(call).rejects.toThrow(`path "${requested}" may hold credentials`);
  });

  it('read_file refuses an absolute path to .env too', async () => {
    await expect(runTool(tools.readFile, { path: path.join(root, '.env') })).rejects.toThrow(SecretPathError);
  });

  it('list_directory leaves them out and refuses to list .git', async () => {
    await expect(runTool(tools.listDirectory, { path: 'keys' })).resolves.toEqual({
      path: 'keys',
      entries: [],
      truncated: false,
    });
    await expect(runTool(tools.listDirectory, { path: 'config' })).resolves.toMatchObject({ entries: [] });
    await expect(runTool(tools.listDirectory, { path: '.git' })).rejects.toThrow(SecretPathError);
  });

  it('grep_search never reads them, across the tree or by name', async () => {
    const output = (await runTool(tools.grepSearch, { pattern: 'TODO' })) as { matches: Array<{ path: string }> };
    expect(output.matches.map((match) => match.path)).toEqual(['src/main.ts']);
    await expect(runTool(tools.grepSearch, { pattern: 'sk-', path: '.env' })).rejects.toThrow(SecretPathError);
    await expect(runTool(tools.grepSearch, { pattern: 'TODO', path: 'keys' })).resolves.toBe(
      'No matches for "TODO" in 0 text file(s) under "keys".',
    );
  });
});

describe('list_directory', () => {
  it('lists the root by default, sorted, with types and file sizes', async () => {
    const output = (await runTool(tools.listDirectory, {})) as { path: string; entries: unknown[]; truncated: boolean };
    expect(output.path).toBe('.');
    expect(output.truncated).toBe(false);
    expect(output.entries).toEqual([
      { name: 'README.md', type: 'file', size: 32 },
      { name: 'config', type: 'dir' },
      { name: 'docs', type: 'dir' },
      { name: 'escape-dir', type: 'symlink' },
      { name: 'escape.txt', type: 'symlink' },
      { name: 'innocent.txt', type: 'symlink' },
      { name: 'keys', type: 'dir' },
      { name: 'logo.png', type: 'file', size: 12 },
      { name: 'readme-link.md', type: 'symlink' },
      { name: 'src', type: 'dir' },
    ]);
  });

  it('lists a subdirectory', async () => {
    await expect(runTool(tools.listDirectory, { path: 'src' })).resolves.toEqual({
      path: 'src',
      entries: [
        { name: 'main.ts', type: 'file', size: Buffer.byteLength(MAIN_TS) },
        { name: 'util.ts', type: 'file', size: Buffer.byteLength(UTIL_TS) },
      ],
      truncated: false,
    });
  });

  it('refuses escapes and explains files and missing paths', async () => {
    await expect(runTool(tools.listDirectory, { path: '..' })).rejects.toThrow(PathOutsideRootError);
    await expect(runTool(tools.listDirectory, { path: 'escape-dir' })).rejects.toThrow(PathOutsideRootError);
    await expect(runTool(tools.listDirectory, { path: '/' })).rejects.toThrow(PathOutsideRootError);
    await expect(runTool(tools.listDirectory, { path: 'README.md' })).rejects.toThrow(
      '"README.md" is a file, not a directory; use read_file to read it',
    );
    await expect(runTool(tools.listDirectory, { path: 'missing' })).rejects.toThrow(
      'no such file or directory: "missing"',
    );
  });
});

describe('grep_search', () => {
  it('finds literal matches with path and 1-based line, skipping .git, binaries and symlinks out', async () => {
    await expect(runTool(tools.grepSearch, { pattern: 'TODO' })).resolves.toEqual({
      matches: [{ path: 'src/main.ts', line: 2, text: '// TODO: wire the worker' }],
      truncated: false,
      filesSearched: 4,
    });
  });

  it('supports ignoreCase, regex and a narrower path', async () => {
    const caseless = (await runTool(tools.grepSearch, { pattern: 'todo', ignoreCase: true, path: 'src' })) as {
      matches: Array<{ path: string; line: number }>;
    };
    expect(caseless.matches.map((match) => `${match.path}:${match.line}`)).toEqual(['src/main.ts:2', 'src/util.ts:1']);
    const regex = (await runTool(tools.grepSearch, { pattern: 'return \\d+;', regex: true })) as {
      matches: Array<{ path: string; text: string }>;
    };
    expect(regex.matches).toEqual([{ path: 'src/main.ts', line: 3, text: 'return 42;' }]);
  });

  it('searches a single file and treats regex characters literally by default', async () => {
    const output = await runTool(tools.grepSearch, { pattern: 'main()', path: 'src/main.ts' });
    expect(output).toMatchObject({ matches: [{ path: 'src/main.ts', line: 1 }] });
  });

  it('stops at maxResults and says so', async () => {
    const output = await runTool(tools.grepSearch, { pattern: 'o', maxResults: 2 });
    expect(output).toMatchObject({ truncated: true });
    expect((output as { matches: unknown[] }).matches).toHaveLength(2);
  });

  it('explains no matches, bad regexes and escapes', async () => {
    await expect(runTool(tools.grepSearch, { pattern: 'zzyzx' })).resolves.toBe(
      'No matches for "zzyzx" in 4 text file(s) under ".".',
    );
    await expect(runTool(tools.grepSearch, { pattern: '(unclosed', regex: true })).rejects.toThrow(
      /^invalid regular expression "\(unclosed": /,
    );
    await expect(runTool(tools.grepSearch, { pattern: 'TODO', path: '../' })).rejects.toThrow(PathOutsideRootError);
    await expect(runTool(tools.grepSearch, { pattern: 'TODO', path: 'escape-dir' })).rejects.toThrow(
      PathOutsideRootError,
    );
  });

  it('stops a backtracking regex at its deadline without blocking the event loop', async () => {
    await writeFile(path.join(root, 'as.txt'), `${'a'.repeat(40)}!\n`);
    const quick = createFileTools({ root, regexTimeLimitMs: 300 });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);
    try {
      const search = runTool(quick.grepSearch, { pattern: '^(a+)+$', regex: true, path: 'as.txt' });
      await expect(search).rejects.toThrow(ToolInputError);
      await expect(search).rejects.toThrow(/^pattern "\^\(a\+\)\+\$" took more than 0.3 s to match and was stopped/);
    } finally {
      clearInterval(ticker);
      await rm(path.join(root, 'as.txt'));
    }
    // The regex spun on its own thread: timers on this one kept firing throughout.
    expect(ticks).toBeGreaterThan(5);
  });

  it('runs nested groups that are safe, which a shape check would refuse, and matches past 4 KiB into a line', async () => {
    await writeFile(path.join(root, 'long.txt'), `${'x'.repeat(10_000)} foobarfoo\n`);
    try {
      await expect(
        runTool(tools.grepSearch, { pattern: '(foo|bar)+$', regex: true, path: 'long.txt' }),
      ).resolves.toMatchObject({ matches: [{ path: 'long.txt', line: 1 }] });
    } finally {
      await rm(path.join(root, 'long.txt'));
    }
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    try {
      await expect(runTool(tools.grepSearch, { pattern: 'x', path: 'pipe' })).rejects.toThrow(
        '"pipe" is not a regular file',
      );
      // A directory search passes it by (it is not a regular file either).
      await expect(runTool(tools.grepSearch, { pattern: 'TODO' })).resolves.toMatchObject({
        matches: [{ path: 'src/main.ts', line: 2 }],
      });
    } finally {
      await rm(fifo);
    }
  });
});

describe('createBuiltinTools', () => {
  it('needs no options: the file tools are confined to the current directory', async () => {
    const tools = createBuiltinTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'text',
      'search',
      'read_file',
      'list_directory',
      'grep_search',
    ]);
    const readFile = tools.find((tool) => tool.name === 'read_file')!;
    expect(await runTool(readFile, { path: 'package.json' })).toContain('"name": "durable-react-agent"');
    await expect(runTool(readFile, { path: '../outside.txt' })).rejects.toThrow(PathOutsideRootError);
  });
});
