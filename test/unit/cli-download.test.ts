import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  TemporalCliDownloadError,
  downloadInfoUrl,
  downloadTarget,
  downloadTemporalCli,
} from '../../src/dev/cli-download';
import { resolveTemporalCli, temporalCliCacheDir } from '../../src/dev/provision';

// A loopback HTTP server stands in for temporal.download (TEMPORAL_CLI_DOWNLOAD_URL points at it): nothing here
// reaches the internet or runs a Go build.
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cli-download-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A .tar.gz holding `files` (name → shell script body), made with the system tar as Temporal's archives are. */
async function fakeArchive(files: Record<string, string>): Promise<Buffer> {
  const dir = await tempDir();
  await mkdir(path.join(dir, 'in'));
  for (const [name, script] of Object.entries(files)) {
    await writeFile(path.join(dir, 'in', name), `#!/bin/sh\n${script}\n`);
    await chmod(path.join(dir, 'in', name), 0o644); // the download must make it executable itself
  }
  execFileSync('tar', ['-czf', path.join(dir, 'archive.tar.gz'), '-C', path.join(dir, 'in'), ...Object.keys(files)]);
  return readFile(path.join(dir, 'archive.tar.gz'));
}

/** Serves the download service's two answers and records the paths it was asked for; returns its base URL. */
async function fakeService(archive: Buffer, requests: string[] = []): Promise<string> {
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url?.startsWith('/cli/')) {
      response.setHeader('content-type', 'application/json');
      // A relative archiveUrl: resolved against the service's URL, as a browser would.
      response.end(JSON.stringify({ archiveUrl: '/archives/temporal_cli.tar.gz', fileToExtract: 'temporal' }));
    } else if (request.url === '/archives/temporal_cli.tar.gz') {
      response.end(archive);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  return listen(server);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('the download service’s names for this machine', () => {
  it('maps Node’s platform and arch, asks Windows for a zip, and has none for other pairs', () => {
    expect(downloadTarget('linux', 'x64')).toEqual({ platform: 'linux', arch: 'amd64', format: 'tar.gz' });
    expect(downloadTarget('darwin', 'arm64')).toEqual({ platform: 'darwin', arch: 'arm64', format: 'tar.gz' });
    expect(downloadTarget('win32', 'x64')).toEqual({ platform: 'windows', arch: 'amd64', format: 'zip' });
    expect(downloadTarget('freebsd', 'x64')).toBeUndefined();
    expect(downloadTarget('linux', 'ia32')).toBeUndefined();
  });

  it('builds the info URL under the base, which may be a mirror’s sub-path', () => {
    const target = { platform: 'linux', arch: 'amd64', format: 'tar.gz' } as const;
    expect(downloadInfoUrl('https://temporal.download', 'v1.5.1', target).href).toBe(
      'https://temporal.download/cli/v1.5.1?arch=amd64&platform=linux&format=tar.gz',
    );
    expect(downloadInfoUrl('https://mirror.example/temporal/', 'v1.5.1', target).href).toBe(
      'https://mirror.example/temporal/cli/v1.5.1?arch=amd64&platform=linux&format=tar.gz',
    );
  });
});

describe.skipIf(downloadTarget()?.format !== 'tar.gz')('downloading the Temporal CLI', () => {
  it('downloads the pinned version into the cache before any Go build, and finds it there next time', async () => {
    const requests: string[] = [];
    const base = await fakeService(
      await fakeArchive({ temporal: 'echo "temporal version 1.5.1"', LICENSE: '' }),
      requests,
    );
    const env = { PATH: '', XDG_CACHE_HOME: await tempDir(), TEMPORAL_CLI_DOWNLOAD_URL: base };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (line) => lines.push(line) });
    const binary = path.join(temporalCliCacheDir(env), 'temporal');
    expect(resolved).toEqual({ type: 'existing-path', path: binary, source: 'download' });
    expect(execFileSync(binary, ['--version'], { encoding: 'utf8' })).toBe('temporal version 1.5.1\n');
    const { platform, arch } = downloadTarget() ?? {};
    expect(requests).toEqual([
      `/cli/v1.5.1?arch=${arch}&platform=${platform}&format=tar.gz`,
      '/archives/temporal_cli.tar.gz',
    ]);
    expect(lines.at(-1)).toMatch(new RegExp(`^downloaded in \\d+s: ${binary}$`));
    // Only the binary is left: no scratch folder, no lock file, not the archive's other files.
    expect(await readdir(path.join(env.XDG_CACHE_HOME, 'durable-react-agent'))).toEqual(['temporal-cli-v1.5.1']);
    expect(await readdir(temporalCliCacheDir(env))).toEqual(['temporal']);

    expect(await resolveTemporalCli({ env })).toEqual({ type: 'existing-path', path: binary, source: 'cache' });
    expect(requests).toHaveLength(2);
  });

  it('caches nothing when the archive lacks the binary, and resolving falls through, saying why', async () => {
    const base = await fakeService(await fakeArchive({ README: 'echo not the cli' }));
    const env = { PATH: '', XDG_CACHE_HOME: await tempDir(), TEMPORAL_CLI_DOWNLOAD_URL: base };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (line) => lines.push(line) });
    expect(resolved).toEqual({ type: 'cached-download', source: 'sdk-download' });
    expect(lines.at(-1)).toMatch(/^Could not download the Temporal CLI \(tar .* failed: .*temporal/);
    expect(await readdir(path.join(env.XDG_CACHE_HOME, 'durable-react-agent'))).toEqual([]);
  });

  it('drops a downloaded file that does not answer --version as the Temporal CLI', async () => {
    const base = await fakeService(await fakeArchive({ temporal: 'echo "something else 1.0"' }));
    const env = { PATH: '', XDG_CACHE_HOME: await tempDir(), TEMPORAL_CLI_DOWNLOAD_URL: base };
    const lines: string[] = [];

    const resolved = await resolveTemporalCli({ env, log: (line) => lines.push(line) });
    expect(resolved).toEqual({ type: 'cached-download', source: 'sdk-download' });
    expect(lines.at(-1)).toMatch(/does not answer --version as the Temporal CLI/);
    expect(await readdir(temporalCliCacheDir(env))).toEqual([]);
  });

  it('gives up within its timeout when the service accepts but never answers', async () => {
    const silent = createServer(() => undefined); // holds every request open
    const env = { TEMPORAL_CLI_DOWNLOAD_URL: await listen(silent) };
    cleanups.unshift(async () => silent.closeAllConnections());

    const download = downloadTemporalCli({
      version: 'v1.5.1',
      cacheDir: path.join(await tempDir(), 'cli'),
      env,
      infoTimeoutMs: 200,
    });
    await expect(download).rejects.toThrow(TemporalCliDownloadError);
    await expect(download).rejects.toThrow(/could not reach http:\/\/127\.0\.0\.1:\d+ \(.*timeout/i);
  });

  it('names the HTTP status when the service refuses the version', async () => {
    const refusing = createServer((_request, response) => void ((response.statusCode = 404), response.end()));
    const env = { TEMPORAL_CLI_DOWNLOAD_URL: await listen(refusing) };

    await expect(
      downloadTemporalCli({ version: 'v0.0.0', cacheDir: path.join(await tempDir(), 'cli'), env }),
    ).rejects.toThrow(/\/cli\/v0\.0\.0\?.* answered HTTP 404/);
  });
});
