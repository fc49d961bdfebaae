import { promises as fs } from 'node:fs';
import type { Dirent } from 'node:fs';
import * as path from 'node:path';
import { ToolInputError } from '../define-tool';

/**
 * Shared by the file tools and the search tool: confining model-supplied paths to a root, walking a folder, and
 * telling text from binary. Kept in one place so both tools enforce the same boundary.
 */

/** Files larger than this are never read whole by a tool (1 MiB). */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;

/** Directory names a walk never enters: version-control data and dependency trees are noise, not documents. */
const SKIPPED_DIRECTORIES = new Set(['.git', '.hg', '.svn', 'node_modules']);

/**
 * File names that hold credentials rather than documents. The tools' root defaults to the current directory, which
 * usually holds the worker's own `.env`; anything matched here is never read, listed or searched, so it cannot reach
 * the model (or its provider) through a tool result.
 */
const SECRET_FILE_PATTERNS: readonly RegExp[] = [
  /^\.env$/,
  /^\.env\./,
  /\.pem$/,
  /\.key$/,
  /^id_rsa/,
  /^id_ed25519/,
  /\.p12$/,
  /\.pfx$/,
  /^\.npmrc$/,
  /^\.netrc$/,
];

/** Folder names whose whole subtree is secret: git data holds remotes with tokens and every past version of a file. */
const SECRET_DIRECTORY_NAMES = new Set(['.git']);

/** True when a single file or folder name is denied by default (case-insensitive: some file systems are). */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_DIRECTORY_NAMES.has(lower) || SECRET_FILE_PATTERNS.some((pattern) => pattern.test(lower));
}

/** True when a root-relative path ('/' or OS separators) is, or lies under, a secret name. */
export function isSecretPath(relativePath: string): boolean {
  const segments = relativePath.split(/[\\/]/).filter((segment) => segment !== '' && segment !== '.');
  return segments.some((segment, index) =>
    index === segments.length - 1 ? isSecretName(segment) : SECRET_DIRECTORY_NAMES.has(segment.toLowerCase()),
  );
}

/** A requested path names a file the tools never expose, such as `.env` or a private key. */
export class SecretPathError extends ToolInputError {
  override readonly name = 'SecretPathError';

  constructor(readonly requestedPath: string) {
    super(
      `path "${requestedPath}" may hold credentials (.env files, private keys, .npmrc, .netrc, .git) ` +
        'and is not available to tools',
    );
  }
}

/** A requested path resolves (lexically or through a symlink) to somewhere outside the tool's root. */
export class PathOutsideRootError extends ToolInputError {
  override readonly name = 'PathOutsideRootError';

  constructor(readonly requestedPath: string) {
    super(`path "${requestedPath}" is outside the allowed root; use a path relative to the root`);
  }
}

/** A requested path does not exist under the root. */
export class PathNotFoundError extends ToolInputError {
  override readonly name = 'PathNotFoundError';

  constructor(readonly requestedPath: string) {
    super(`no such file or directory: "${requestedPath}"`);
  }
}

/** A path inside the root, resolved to its real location, plus how to show it to the model. */
export interface ConfinedPath {
  /** Absolute real path (symlinks resolved). */
  absolute: string;
  /** Path relative to the real root with '/' separators; '.' for the root itself. */
  relative: string;
  /** The real root the path was checked against. */
  root: string;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** Relative path with '/' separators, so output looks the same on every OS. */
export function toDisplayPath(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * Resolves a model-supplied path against root and refuses anything that lands outside it. The lexical check catches
 * "../x" and foreign absolute paths even when they do not exist; the realpath check catches symlinks pointing out.
 */
export async function resolveInsideRoot(root: string, requestedPath: string): Promise<ConfinedPath> {
  const lexicalRoot = path.resolve(root);
  let realRoot: string;
  try {
    realRoot = await fs.realpath(lexicalRoot);
  } catch (error) {
    if (errorCode(error) === 'ENOENT')
      throw new Error(`the tool's root folder "${root}" does not exist`, { cause: error });
    throw error;
  }
  const candidate = path.resolve(lexicalRoot, requestedPath);
  // Either spelling of the root is fine: on macOS /tmp is a symlink to /private/tmp.
  if (!isInside(lexicalRoot, candidate) && !isInside(realRoot, candidate)) {
    throw new PathOutsideRootError(requestedPath);
  }
  // Checked before touching the file, so a denied name is refused the same way whether it exists or not.
  if (isSecretPath(path.relative(lexicalRoot, candidate))) throw new SecretPathError(requestedPath);
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new PathNotFoundError(requestedPath);
    if (code === 'EACCES' || code === 'EPERM')
      throw new Error(`permission denied: "${requestedPath}"`, { cause: error });
    if (code === 'ELOOP') throw new Error(`too many levels of symbolic links: "${requestedPath}"`, { cause: error });
    throw error;
  }
  if (!isInside(realRoot, real)) throw new PathOutsideRootError(requestedPath);
  const relative = toDisplayPath(realRoot, real);
  // An innocent-looking symlink may point at `.env`: the target's name counts too.
  if (isSecretPath(relative)) throw new SecretPathError(requestedPath);
  return { absolute: real, relative, root: realRoot };
}

/** A regular file found by walkFiles. */
export interface WalkedFile {
  absolute: string;
  size: number;
}

/**
 * Yields regular files under a directory, depth-first in name order so results are deterministic. Symlinks are
 * skipped rather than followed: following them could leave the root or loop forever. Secret names (isSecretName)
 * are skipped so no search reads them.
 */
export async function* walkFiles(directory: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await fs.readdir(directory, { withFileTypes: true });
  } catch (error) {
    // An unreadable subfolder should not fail a whole search.
    if (errorCode(error) === 'EACCES' || errorCode(error) === 'EPERM') return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isSecretName(entry.name)) continue;
    const absolute = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* walkFiles(absolute, signal);
    } else if (entry.isFile()) {
      const stats = await fs.stat(absolute).catch(() => undefined);
      if (stats) yield { absolute, size: stats.size };
    }
  }
}

/**
 * Decodes bytes as UTF-8 text, or returns undefined for binary content: a NUL byte in the first 8 KiB, or bytes
 * that are not valid UTF-8. Feeding binary to a model wastes its context and teaches it nothing.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Reads a file as text if it is small enough and not binary; undefined otherwise. */
export async function readTextFileIfSmall(absolute: string): Promise<string | undefined> {
  const bytes = await fs.readFile(absolute).catch(() => undefined);
  if (!bytes || bytes.length > MAX_TEXT_FILE_BYTES) return undefined;
  return decodeText(bytes);
}
