import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineTool, ToolInputError } from '../define-tool';
import type { AnyToolDefinition } from '../define-tool';
import {
  decodeText,
  MAX_TEXT_FILE_BYTES,
  readTextFileIfSmall,
  isSecretName,
  resolveInsideRoot,
  toDisplayPath,
  walkFiles,
} from './file-access';
import { DEFAULT_REGEX_TIME_LIMIT_MS, literalMatcher, regexMatcher, splitLines } from './line-matcher';
import { clip } from '../../../shared/well-formed';

/** Default cap on read_file output; big enough for a source file, small enough for a model's context. */
export const DEFAULT_READ_MAX_BYTES = 100_000;
/** Default number of grep_search matches returned. */
export const DEFAULT_GREP_MAX_RESULTS = 50;
/** Most entries list_directory returns; a bigger folder is marked truncated. */
export const MAX_DIRECTORY_ENTRIES = 1000;
/** A matched line is cut to this many characters in grep_search results. */
const MAX_MATCH_TEXT_LENGTH = 300;
/** Longest pattern accepted from the model. */
const MAX_PATTERN_LENGTH = 500;

/** Options for createFileTools. */
export interface FileToolsOptions {
  /** Folder the tools may read; every path is resolved against it and confined to it. */
  root: string;
  /** Wall-clock time one grep_search may spend matching a regex before it is stopped and refused (default 5 s). */
  regexTimeLimitMs?: number;
}

/** One entry of a list_directory result; size is given for files only. */
export type DirectoryEntry = { name: string; type: 'file' | 'dir' | 'symlink' | 'other'; size?: number };

/** One grep_search match; line is 1-based. */
export type GrepMatch = { path: string; line: number; text: string };

const readFileSchema = z.object({
  path: z.string().min(1).describe('File path relative to the root, e.g. "docs/guide.md"'),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_TEXT_FILE_BYTES)
    .optional()
    .describe(`Refuse files larger than this (default ${DEFAULT_READ_MAX_BYTES}, at most ${MAX_TEXT_FILE_BYTES})`),
});

const listDirectorySchema = z.object({
  path: z.string().min(1).default('.').describe('Directory relative to the root; "." is the root itself'),
});

const grepSearchSchema = z.object({
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe('Text to find in each line'),
  regex: z.boolean().default(false).describe('Treat pattern as a JavaScript regular expression'),
  ignoreCase: z.boolean().default(false).describe('Match regardless of letter case'),
  path: z.string().min(1).default('.').describe('File or directory to search, relative to the root'),
  maxResults: z.number().int().min(1).max(500).default(DEFAULT_GREP_MAX_RESULTS),
});

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Builds read_file, list_directory and grep_search, all confined to options.root (symlinks included). */
export function createFileTools(options: FileToolsOptions): {
  readFile: AnyToolDefinition;
  listDirectory: AnyToolDefinition;
  grepSearch: AnyToolDefinition;
} {
  const { root, regexTimeLimitMs = DEFAULT_REGEX_TIME_LIMIT_MS } = options;

  const readFile = defineTool({
    name: 'read_file',
    description:
      'Read a UTF-8 text file under the workspace root and return its content. ' +
      'Refuses binary files, credential files (.env, private keys) and files larger than maxBytes; use grep_search to find lines in big files.',
    category: 'files',
    readOnly: true, // reads the workspace, changes nothing: may run ahead inside the model call
    schema: readFileSchema,
    examples: [{ path: 'README.md' }, { path: 'docs/setup.md', maxBytes: 20_000 }],
    handler: async (args) => {
      const target = await resolveInsideRoot(root, args.path);
      const stats = await fs.stat(target.absolute);
      if (stats.isDirectory()) throw new Error(`"${args.path}" is a directory; use list_directory to see its contents`);
      if (!stats.isFile()) throw new Error(`"${args.path}" is not a regular file`);
      const maxBytes = args.maxBytes ?? DEFAULT_READ_MAX_BYTES;
      if (stats.size > maxBytes) {
        throw new Error(
          `file "${args.path}" is ${formatBytes(stats.size)}, more than maxBytes (${maxBytes}); ` +
            `pass a larger maxBytes (up to ${MAX_TEXT_FILE_BYTES}) or use grep_search to find the lines you need`,
        );
      }
      const text = decodeText(await fs.readFile(target.absolute));
      if (text === undefined) throw new Error(`file "${args.path}" is binary, not UTF-8 text; it cannot be read`);
      return text;
    },
  });

  const listDirectory = defineTool({
    name: 'list_directory',
    description:
      'List a directory under the workspace root: each entry with its type (file, dir, symlink, other) and, ' +
      'for files, its size in bytes, sorted by name.',
    category: 'files',
    readOnly: true, // reads the workspace, changes nothing: may run ahead inside the model call
    schema: listDirectorySchema,
    examples: [{ path: '.' }, { path: 'src' }],
    handler: async (args) => {
      const target = await resolveInsideRoot(root, args.path);
      const stats = await fs.stat(target.absolute);
      if (!stats.isDirectory()) throw new Error(`"${args.path}" is a file, not a directory; use read_file to read it`);
      // Secret names are left out entirely: even a listed `.env` invites the model to try reading it.
      const dirents = (await fs.readdir(target.absolute, { withFileTypes: true })).filter(
        (dirent) => !isSecretName(dirent.name),
      );
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const entries: DirectoryEntry[] = [];
      for (const dirent of dirents.slice(0, MAX_DIRECTORY_ENTRIES)) {
        if (dirent.isDirectory()) {
          entries.push({ name: dirent.name, type: 'dir' });
        } else if (dirent.isFile()) {
          const size = await fs
            .stat(path.join(target.absolute, dirent.name))
            .then((s) => s.size)
            .catch(() => undefined);
          entries.push({ name: dirent.name, type: 'file', ...(size === undefined ? {} : { size }) });
        } else {
          // Symlinks are not followed here: their targets may lie outside the root.
          entries.push({ name: dirent.name, type: dirent.isSymbolicLink() ? 'symlink' : 'other' });
        }
      }
      return { path: target.relative, entries, truncated: dirents.length > MAX_DIRECTORY_ENTRIES };
    },
  });

  const grepSearch = defineTool({
    name: 'grep_search',
    description:
      'Find lines containing a literal string (or a regular expression with regex: true) in text files under a ' +
      'path in the workspace root. Returns matches as { path, line, text }. Skips binary files, files over 1 MiB, ' +
      'credential files (.env, private keys), .git and node_modules. A regex that takes over ' +
      `${regexTimeLimitMs / 1000} s is stopped: keep patterns simple.`,
    category: 'files',
    readOnly: true, // reads the workspace, changes nothing: may run ahead inside the model call
    schema: grepSearchSchema,
    examples: [{ pattern: 'TODO' }, { pattern: 'export (async )?function \\w+', regex: true, path: 'src' }],
    handler: async (args, context) => {
      const target = await resolveInsideRoot(root, args.path);
      const stats = await fs.stat(target.absolute);
      // Opening a FIFO or a device would block the read until something writes to it: regular files only.
      if (!stats.isDirectory() && !stats.isFile()) throw new ToolInputError(`"${args.path}" is not a regular file`);
      const matcher = args.regex
        ? regexMatcher(args.pattern, args.ignoreCase, regexTimeLimitMs, context.signal)
        : literalMatcher(args.pattern, args.ignoreCase);
      const files = stats.isDirectory()
        ? walkFiles(target.absolute, context.signal)
        : (async function* single() {
            yield { absolute: target.absolute, size: stats.size };
          })();
      const results: GrepMatch[] = [];
      let filesSearched = 0;
      let truncated = false;
      try {
        for await (const file of files) {
          if (file.size > MAX_TEXT_FILE_BYTES) continue;
          const text = await readTextFileIfSmall(file.absolute);
          if (text === undefined) continue;
          filesSearched += 1;
          // One more than still fits, to know whether the results were cut.
          const hits = await matcher.matchingLines(text, args.maxResults - results.length + 1);
          const lines = hits.length > 0 ? splitLines(text) : [];
          for (const index of hits) {
            if (results.length >= args.maxResults) {
              truncated = true;
              break;
            }
            results.push({
              path: toDisplayPath(target.root, file.absolute),
              line: index + 1,
              text: clip(lines[index]!.trim(), MAX_MATCH_TEXT_LENGTH),
            });
          }
          if (truncated) break;
        }
      } finally {
        await matcher.close();
      }
      if (results.length === 0) {
        return `No matches for "${args.pattern}" in ${filesSearched} text file(s) under "${target.relative}".`;
      }
      return { matches: results, truncated, filesSearched };
    },
  });

  return { readFile, listDirectory, grepSearch };
}
