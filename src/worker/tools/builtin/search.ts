import * as path from 'node:path';
import MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import { z } from 'zod';
import { defineTool } from '../define-tool';
import type { AnyToolDefinition } from '../define-tool';
import { MAX_TEXT_FILE_BYTES, readTextFileIfSmall, resolveInsideRoot, toDisplayPath, walkFiles } from './file-access';

/** File extensions the search tool indexes; other files (code, images, archives) are left to grep_search. */
export const SEARCHABLE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.md',
  '.markdown',
  '.mdx',
  '.txt',
  '.text',
  '.rst',
  '.adoc',
  '.org',
  '.json',
  '.jsonl',
  '.yaml',
  '.yml',
  '.toml',
  '.csv',
  '.tsv',
  '.html',
  '.htm',
  '.xml',
]);
/** Most files one index holds; a bigger folder is indexed partially, in walk order. */
export const MAX_INDEXED_FILES = 5000;
/** Most text one index holds (64 MiB), so a huge folder cannot exhaust the worker's memory. */
export const MAX_INDEXED_BYTES = 64 * 1024 * 1024;
/** Default number of hits returned. */
export const DEFAULT_SEARCH_LIMIT = 5;
const SNIPPET_LENGTH = 200;
const SNIPPET_LEAD = 60;

/** Options for createSearchTool. */
export interface SearchToolOptions {
  /** Folder whose documents are indexed (recursively). */
  root: string;
}

/** One ranked search hit. */
export type SearchHit = { path: string; score: number; title: string; snippet: string };

interface IndexedDocument {
  id: number;
  path: string;
  title: string;
  text: string;
}

interface SearchIndex {
  miniSearch: MiniSearch<IndexedDocument>;
  documents: Map<number, IndexedDocument>;
}

const searchSchema = z.object({
  query: z.string().min(1).max(500).describe('Words to look for; documents matching more of them rank higher'),
  limit: z.number().int().min(1).max(20).default(DEFAULT_SEARCH_LIMIT).describe('Number of hits to return'),
});

function titleOf(relativePath: string, text: string): string {
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text);
  return heading?.[1]?.trim() || path.posix.basename(relativePath);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** ~200 characters around the earliest whole-word occurrence of any matched term, whitespace collapsed. */
function snippetOf(text: string, terms: readonly string[]): string {
  let first = -1;
  for (const term of terms) {
    const match = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'iu').exec(text);
    if (match && (first === -1 || match.index < first)) first = match.index;
  }
  const start = Math.max(0, first - SNIPPET_LEAD);
  const end = Math.min(text.length, start + SNIPPET_LENGTH);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

async function buildIndex(root: string): Promise<SearchIndex> {
  const confinedRoot = await resolveInsideRoot(root, '.');
  const miniSearch = new MiniSearch<IndexedDocument>({
    fields: ['title', 'text', 'path'],
    searchOptions: {
      boost: { title: 3, path: 1.5 },
      // Prefix and fuzzy matching on very short terms match nearly everything, so only longer terms get them.
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: 'OR',
    },
  });
  const documents = new Map<number, IndexedDocument>();
  let totalBytes = 0;
  for await (const file of walkFiles(confinedRoot.absolute)) {
    if (documents.size >= MAX_INDEXED_FILES || totalBytes >= MAX_INDEXED_BYTES) break;
    if (!SEARCHABLE_EXTENSIONS.has(path.extname(file.absolute).toLowerCase())) continue;
    if (file.size > MAX_TEXT_FILE_BYTES) continue;
    const text = await readTextFileIfSmall(file.absolute);
    if (text === undefined) continue;
    const relativePath = toDisplayPath(confinedRoot.absolute, file.absolute);
    const document = { id: documents.size, path: relativePath, title: titleOf(relativePath, text), text };
    documents.set(document.id, document);
    totalBytes += file.size;
  }
  await miniSearch.addAllAsync([...documents.values()]);
  return { miniSearch, documents };
}

function toHit(result: SearchResult, index: SearchIndex): SearchHit | undefined {
  const document = index.documents.get(result.id as number);
  if (!document) return undefined;
  return {
    path: document.path,
    score: Math.round(result.score * 1000) / 1000,
    title: document.title,
    snippet: snippetOf(document.text, result.terms),
  };
}

/**
 * Builds the `search` tool: ranked full-text search over the documents under options.root. The index is built on
 * the first call and kept for the life of this tool instance, so files added later are not seen until restart.
 */
export function createSearchTool(options: SearchToolOptions): AnyToolDefinition {
  let indexPromise: Promise<SearchIndex> | undefined;
  const getIndex = (): Promise<SearchIndex> => {
    indexPromise ??= buildIndex(options.root).catch((error: unknown) => {
      // A failed build (say, the folder was not mounted yet) should be retried by the next call, not cached.
      indexPromise = undefined;
      throw error;
    });
    return indexPromise;
  };

  return defineTool({
    name: 'search',
    description:
      'Full-text search over the local document collection (Markdown, text, JSON, YAML, CSV, HTML...). ' +
      'Returns the best-matching documents with a relevance score, title and a snippet; read a hit in full with ' +
      'read_file if the snippet is not enough.',
    category: 'search',
    readOnly: true, // reads the index (built once per worker), changes nothing: may run ahead inside the model call
    schema: searchSchema,
    examples: [{ query: 'retry policy timeout' }, { query: 'installation requirements', limit: 3 }],
    handler: async (args) => {
      const index = await getIndex();
      const results = index.miniSearch.search(args.query);
      const hits = results
        .slice(0, args.limit)
        .map((result) => toHit(result, index))
        .filter((hit): hit is SearchHit => hit !== undefined);
      if (hits.length === 0) {
        return `No documents match "${args.query}" in ${index.documents.size} indexed documents.`;
      }
      return { query: args.query, totalMatches: results.length, hits };
    },
  });
}
