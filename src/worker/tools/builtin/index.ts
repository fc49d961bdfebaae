import type { AnyToolDefinition } from '../define-tool';
import { calculatorTool } from './calculator';
import { createFileTools } from './files';
import { createSearchTool } from './search';
import { textTool } from './text';

export { calculatorTool } from './calculator';
export { ExpressionError, evaluateExpression } from './expression-parser';
export { textTool, applyTextOperation } from './text';
export type { TextArgs, TextOperation, TextResult } from './text';
export { createSearchTool } from './search';
export type { SearchHit, SearchToolOptions } from './search';
export { createFileTools } from './files';
export type { DirectoryEntry, FileToolsOptions, GrepMatch } from './files';
export { PathNotFoundError, PathOutsideRootError } from './file-access';

/** Options for createBuiltinTools. */
export interface BuiltinToolsOptions {
  /** Folder the file tools may read; every path is confined to it (default: the current directory). */
  root?: string;
  /** Folder the search tool indexes; defaults to root. */
  searchRoot?: string;
}

/** Every built-in tool: calculator, text, search, read_file, list_directory, grep_search. */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
  const root = options.root ?? process.cwd();
  const files = createFileTools({ root });
  return [
    calculatorTool,
    textTool,
    createSearchTool({ root: options.searchRoot ?? root }),
    files.readFile,
    files.listDirectory,
    files.grepSearch,
  ];
}
