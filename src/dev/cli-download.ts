/**
 * Downloads the pinned Temporal CLI from Temporal's download service into the per-user cache, as the SDK's ephemeral
 * server does (sdk-core's `ephemeral_server`): `GET {base}/cli/{version}?arch=…&platform=…&format=…` answers
 * `{ archiveUrl, fileToExtract }`, and the binary is that file of the archive. Node side only, never in workflows.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { readEnv } from '../common/env';
import { DurableAgentError } from '../shared/errors';
import { acquireLock, exe, isExecutableFile } from './go-build';

/** Temporal's download service; `TEMPORAL_CLI_DOWNLOAD_URL` replaces it (a mirror, or a test's loopback server). */
export const TEMPORAL_DOWNLOAD_URL = 'https://temporal.download';
/** How long the service gets to say where the archive is: a closed network falls through to the Go build quickly. */
export const DOWNLOAD_INFO_TIMEOUT_MS = 10_000;
/** How long the archive (about 40 MB) gets once the service has answered. */
export const DOWNLOAD_ARCHIVE_TIMEOUT_MS = 5 * 60_000;

/** Thrown when the CLI cannot be downloaded; the caller falls back to a Go build. */
export class TemporalCliDownloadError extends DurableAgentError {
  override readonly name = 'TemporalCliDownloadError';
}

/** The download service's names for this machine, or undefined where Temporal publishes no CLI build. */
export interface DownloadTarget {
  platform: 'linux' | 'darwin' | 'windows';
  arch: 'amd64' | 'arm64';
  /** The archive format to ask for: what the system `tar` can extract there (Windows' tar reads zip). */
  format: 'tar.gz' | 'zip';
}

/** Maps Node's platform and arch to the service's; undefined for any other pair. */
export function downloadTarget(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): DownloadTarget | undefined {
  const platforms: Partial<Record<string, DownloadTarget['platform']>> = {
    linux: 'linux',
    darwin: 'darwin',
    win32: 'windows',
  };
  const arches: Partial<Record<string, DownloadTarget['arch']>> = { x64: 'amd64', arm64: 'arm64' };
  const os = platforms[platform];
  const cpu = arches[arch];
  if (!os || !cpu) return undefined;
  return { platform: os, arch: cpu, format: os === 'windows' ? 'zip' : 'tar.gz' };
}

/** The URL that says where `version`'s archive for `target` is. */
export function downloadInfoUrl(base: string, version: string, target: DownloadTarget): URL {
  const url = new URL(`cli/${encodeURIComponent(version)}`, base.endsWith('/') ? base : `${base}/`);
  url.search = new URLSearchParams({ arch: target.arch, platform: target.platform, format: target.format }).toString();
  return url;
}

const DownloadInfo = z.object({
  archiveUrl: z.string().min(1),
  // A plain relative path: the file is extracted by name, and nothing may land outside the scratch folder.
  fileToExtract: z
    .string()
    .min(1)
    .refine((file) => !path.isAbsolute(file) && !file.split(/[\\/]/).includes('..'), 'must be a relative path'),
});

/** Options of {@link downloadTemporalCli}. */
export interface CliDownload {
  /** The pinned release, e.g. `v1.5.1`. */
  version: string;
  /** The folder the binary ends up in, as `temporal` (`temporal.exe`). */
  cacheDir: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Overrides {@link DOWNLOAD_INFO_TIMEOUT_MS} (tests). */
  infoTimeoutMs?: number;
}

const fetchErrorText = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  // fetch() reports "fetch failed" and keeps the useful part (ENOTFOUND, ECONNREFUSED) in its cause.
  const cause =
    error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : '';
  return `${error.message}${cause}`;
};

/** GETs `url` within `timeoutMs`, failing on a non-2xx answer. */
async function get(url: URL, timeoutMs: number): Promise<Response> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' }).catch(
    (error: unknown) => {
      throw new TemporalCliDownloadError(`could not reach ${url.origin} (${fetchErrorText(error)})`);
    },
  );
  if (!response.ok) throw new TemporalCliDownloadError(`${url.href} answered HTTP ${response.status}`);
  return response;
}

/** Extracts one file of an archive with the system `tar` (GNU tar on Linux, bsdtar on macOS and Windows). */
function extract(archive: string, file: string, into: string, format: DownloadTarget['format']): Promise<void> {
  const args = [format === 'zip' ? '-xf' : '-xzf', archive, '-C', into, file];
  return new Promise((resolve, reject) => {
    execFile('tar', args, { timeout: 60_000 }, (error, _out, stderr) =>
      error
        ? reject(new TemporalCliDownloadError(`tar ${args.join(' ')} failed: ${stderr.trim() || error.message}`))
        : resolve(),
    );
  });
}

/**
 * Downloads the CLI into `cacheDir` unless it is there, and returns the binary's path. Concurrent callers share one
 * download (the cache's lock file), and a scratch folder plus a rename mean a failed one leaves nothing behind.
 */
export async function downloadTemporalCli(options: CliDownload): Promise<string> {
  const { version, cacheDir, env = process.env, log = () => undefined } = options;
  const binary = path.join(cacheDir, exe('temporal'));
  if (await isExecutableFile(binary)) return binary;
  const target = downloadTarget();
  if (!target) throw new TemporalCliDownloadError(`no published build for ${process.platform}/${process.arch}`);
  const infoUrl = downloadInfoUrl(readEnv(env).provisioning.cliDownloadUrl ?? TEMPORAL_DOWNLOAD_URL, version, target);
  // Ask the service first, before taking the lock: on a closed network this is the step that fails, within seconds.
  const answer: unknown = await (
    await get(infoUrl, options.infoTimeoutMs ?? DOWNLOAD_INFO_TIMEOUT_MS)
  )
    .json()
    .catch(() => undefined);
  const info = DownloadInfo.safeParse(answer);
  if (!info.success) throw new TemporalCliDownloadError(`${infoUrl.href} did not answer with an archive's location`);
  const archiveUrl = new URL(info.data.archiveUrl, infoUrl);

  const parent = path.dirname(cacheDir);
  await fs.mkdir(parent, { recursive: true });
  const release = await acquireLock(`${cacheDir}.lock`, `the Temporal CLI ${version}`, log);
  try {
    if (await isExecutableFile(binary)) return binary; // another process finished it while we waited
    const scratch = await fs.mkdtemp(path.join(parent, `.download-${path.basename(cacheDir)}-`));
    try {
      const started = Date.now();
      log(`Downloading the Temporal CLI ${version} from ${archiveUrl.href}…`);
      const archive = path.join(scratch, `archive.${target.format}`);
      const body = await (await get(archiveUrl, DOWNLOAD_ARCHIVE_TIMEOUT_MS)).arrayBuffer();
      await fs.writeFile(archive, Buffer.from(body));
      await extract(archive, info.data.fileToExtract, scratch, target.format);
      const extracted = path.join(scratch, info.data.fileToExtract);
      await fs.chmod(extracted, 0o755);
      await fs.mkdir(cacheDir, { recursive: true });
      await fs.rename(extracted, binary);
      log(`downloaded in ${Math.round((Date.now() - started) / 1000)}s: ${binary}`);
      return binary;
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}
