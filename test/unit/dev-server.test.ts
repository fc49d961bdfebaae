import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TemporalCliNotFoundError, resolveTemporalCli, temporalCliCacheDir } from '../../src/dev/provision';
import { devServerDurability, devServerSqliteArgs } from '../../src/dev/tuning';
import { freePort } from '../../src/testing/free-port';

// Every case builds its own PATH / XDG_CACHE_HOME in a temp folder and passes `env` explicitly, so nothing here
// depends on (or changes) the machine's real Temporal CLI, Go toolchain or process.env. Cases that get as far as the
// download point it at a loopback port where nothing listens, so it fails at once, as on a closed network.
const temporaryDirs: string[] = [];

/** A download URL that refuses connections. */
const unreachable = async (): Promise<string> => `http://127.0.0.1:${await freePort()}`;

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dev-server-test-'));
  temporaryDirs.push(dir);
  return dir;
}

/** Writes an executable shell script that prints `output`, standing in for a CLI binary. */
async function fakeExecutable(file: string, output: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\necho "${output}"\n`);
  await chmod(file, 0o755);
  return file;
}

afterEach(async () => {
  await Promise.all(temporaryDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('resolveTemporalCli', () => {
  it('uses TEMPORAL_CLI_PATH first, even when temporal is on PATH and in the cache', async () => {
    const root = await tempDir();
    const fromEnv = await fakeExecutable(path.join(root, 'custom', 'my-temporal'), 'temporal version 9.9.9');
    await fakeExecutable(path.join(root, 'bin', 'temporal'), 'temporal version 1.5.1');
    const cache = path.join(root, 'cache');
    await fakeExecutable(path.join(temporalCliCacheDir({ XDG_CACHE_HOME: cache }), 'temporal'), 'temporal');
    const env = { TEMPORAL_CLI_PATH: fromEnv, PATH: path.join(root, 'bin'), XDG_CACHE_HOME: cache };

    expect(await resolveTemporalCli({ env })).toEqual({ type: 'existing-path', path: fromEnv, source: 'env' });
  });

  it('throws TemporalCliNotFoundError naming TEMPORAL_CLI_PATH when it points at nothing', async () => {
    const root = await tempDir();
    await fakeExecutable(path.join(root, 'bin', 'temporal'), 'temporal version 1.5.1');
    const env = { TEMPORAL_CLI_PATH: path.join(root, 'missing', 'temporal'), PATH: path.join(root, 'bin') };

    const error: unknown = await resolveTemporalCli({ env }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TemporalCliNotFoundError);
    expect((error as Error).name).toBe('TemporalCliNotFoundError');
    expect((error as Error).message).toContain('TEMPORAL_CLI_PATH');
  });

  it('rejects a TEMPORAL_CLI_PATH that exists but is not executable', async () => {
    const root = await tempDir();
    const notExecutable = path.join(root, 'temporal');
    await writeFile(notExecutable, 'not a binary');

    await expect(resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: notExecutable, PATH: '' } })).rejects.toThrow(
      /TEMPORAL_CLI_PATH/,
    );
  });

  it('uses a Temporal CLI found on PATH when TEMPORAL_CLI_PATH is unset', async () => {
    const root = await tempDir();
    const onPath = await fakeExecutable(path.join(root, 'bin', 'temporal'), 'temporal version 1.5.1');
    const env = { PATH: [path.join(root, 'empty'), path.join(root, 'bin')].join(path.delimiter) };

    expect(await resolveTemporalCli({ env })).toEqual({ type: 'existing-path', path: onPath, source: 'path' });
  });

  it('skips a `temporal` on PATH that is some other tool and uses the cached build', async () => {
    const root = await tempDir();
    await fakeExecutable(path.join(root, 'bin', 'temporal'), 'unrelated-tool 2.0');
    const cache = path.join(root, 'cache');
    const cached = await fakeExecutable(path.join(temporalCliCacheDir({ XDG_CACHE_HOME: cache }), 'temporal'), '');
    const env = { PATH: path.join(root, 'bin'), XDG_CACHE_HOME: cache };

    expect(await resolveTemporalCli({ env })).toEqual({ type: 'existing-path', path: cached, source: 'cache' });
  });

  it('uses the cached build under XDG_CACHE_HOME when PATH is empty', async () => {
    const cache = await tempDir();
    const cached = path.join(cache, 'durable-react-agent', 'temporal-cli-v1.5.1', 'temporal');
    await fakeExecutable(cached, 'temporal version 1.5.1');

    expect(await resolveTemporalCli({ env: { PATH: '', XDG_CACHE_HOME: cache } })).toEqual({
      type: 'existing-path',
      path: cached,
      source: 'cache',
    });
  });

  it('falls back to the SDK download when the download fails and Go is not on PATH', async () => {
    const env = { PATH: '', XDG_CACHE_HOME: await tempDir(), TEMPORAL_CLI_DOWNLOAD_URL: await unreachable() };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (l) => lines.push(l) });
    expect(resolved).toEqual({ type: 'cached-download', source: 'sdk-download' });
    expect(lines).toEqual([expect.stringMatching(/^Could not download the Temporal CLI \(.*ECONNREFUSED.*\); trying/)]);
  });
});

describe('resolveTemporalCli with Go on PATH (a fake `go`: no real build runs)', () => {
  /** A stand-in for `go` written in Node (absolute shebang, so it needs no PATH) that runs `script` with GOBIN set. */
  async function fakeGo(dir: string, script: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'go'), `#!${process.execPath}\nconst fs = require('fs');\n${script}\n`);
    await chmod(path.join(dir, 'go'), 0o755);
  }

  it('installs into the cache through a temporary GOBIN and reports progress', async () => {
    const root = await tempDir();
    await fakeGo(
      path.join(root, 'bin'),
      `fs.writeFileSync(process.env.GOBIN + '/temporal', '#!/bin/sh\\necho temporal\\n', { mode: 0o755 });`,
    );
    const env = {
      PATH: path.join(root, 'bin'),
      XDG_CACHE_HOME: path.join(root, 'cache'),
      TEMPORAL_CLI_DOWNLOAD_URL: await unreachable(),
    };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (line) => lines.push(line) });
    const target = path.join(temporalCliCacheDir(env), 'temporal');
    expect(resolved).toEqual({ type: 'existing-path', path: target, source: 'go-install' });
    expect(lines[0]).toContain('Could not download the Temporal CLI');
    expect(lines[1]).toContain('Building the Temporal CLI v1.5.1 with Go');
    expect(lines.at(-1)).toMatch(new RegExp(`^built in \\d+s: ${target}$`));
    // Only the finished binary is left: no temporary GOBIN, no lock file.
    expect(await readdir(path.join(root, 'cache', 'durable-react-agent'))).toEqual(['temporal-cli-v1.5.1']);
    expect(await resolveTemporalCli({ env })).toEqual({ type: 'existing-path', path: target, source: 'cache' });
  });

  it('falls back to the SDK download, saying why, when the Go build fails', async () => {
    const root = await tempDir();
    await fakeGo(path.join(root, 'bin'), `console.error('go: module lookup disabled'); process.exit(1);`);
    const env = {
      PATH: path.join(root, 'bin'),
      XDG_CACHE_HOME: path.join(root, 'cache'),
      TEMPORAL_CLI_DOWNLOAD_URL: await unreachable(),
    };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (line) => lines.push(line) });
    expect(resolved).toEqual({ type: 'cached-download', source: 'sdk-download' });
    expect(lines.at(-1)).toContain('go: module lookup disabled');
    expect(await readdir(path.join(root, 'cache', 'durable-react-agent'))).toEqual([]);
  });
});

describe('temporalCliCacheDir', () => {
  it('lives under XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(temporalCliCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe(
      '/x/cache/durable-react-agent/temporal-cli-v1.5.1',
    );
    expect(temporalCliCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/durable-react-agent/temporal-cli-v1.5.1');
  });
});

describe('the embedded server’s durability mode', () => {
  it('is fast (WAL, synchronous=NORMAL) unless TEMPORAL_DEV_DURABILITY says strict; both set the journal explicitly', () => {
    expect(devServerDurability({})).toBe('fast');
    expect(devServerDurability({ TEMPORAL_DEV_DURABILITY: 'strict' })).toBe('strict');
    expect(() => devServerDurability({ TEMPORAL_DEV_DURABILITY: 'paranoid' })).toThrow(
      'TEMPORAL_DEV_DURABILITY must be "fast" or "strict", got "paranoid"',
    );
    expect(devServerSqliteArgs('fast')).toEqual([
      '--sqlite-pragma',
      'journal_mode=WAL',
      '--sqlite-pragma',
      'synchronous=NORMAL',
    ]);
    // WAL is a property of the file: strict must switch it back, not just leave the pragma out.
    expect(devServerSqliteArgs('strict')).toEqual([
      '--sqlite-pragma',
      'journal_mode=DELETE',
      '--sqlite-pragma',
      'synchronous=FULL',
    ]);
  });
});
