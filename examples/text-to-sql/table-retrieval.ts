import type { ColumnSchema, DatabaseSchema, TableSchema } from './schema';

/** A table ranked for a question: its description and columns, and the score that ranked it. */
export interface RetrievedTable {
  name: string;
  description: string;
  score: number;
  columns: readonly ColumnSchema[];
}

/** The best tables for a question, and the names of the rest so the model knows what else exists. */
export interface TableRetrieval {
  tables: RetrievedTable[];
  otherTables: string[];
  /** Set when no table matched a word of the question. */
  note?: string;
}

/** Where a word matches counts this much: a table's name says most about it, a description least. */
const WEIGHTS = { tableName: 3, columnName: 2, description: 1 } as const;

const STOPWORDS = new Set(
  (
    'a an and are as at be by did do does each every for from had has have how i in is it its many me much of on or per ' +
    'show than that the their them there these this those to was what when where which who whose will with ' +
    'list give find get all any most more top'
  ).split(' '),
);

/** Crude English plural folding: "categories" → "category", "orders" → "order"; enough to match names. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && (word.endsWith('sses') || word.endsWith('xes'))) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Lower-cased, stemmed words without stopwords; identifiers split on `_` like prose. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

/** Each question word scores the best place it matches in the table (name, a column name, a description). */
function scoreTable(table: TableSchema, words: ReadonlySet<string>): number {
  const weightOf = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const token of tokenize(text)) weightOf.set(token, Math.max(weightOf.get(token) ?? 0, weight));
  };
  add(table.description, WEIGHTS.description);
  for (const column of table.columns) {
    add(column.description, WEIGHTS.description);
    add(column.name, WEIGHTS.columnName);
  }
  add(table.name, WEIGHTS.tableName);
  let score = 0;
  for (const word of words) score += weightOf.get(word) ?? 0;
  return score;
}

/** Ranks the schema's tables by keyword overlap with `question` and returns the best `limit` of them. */
export function retrieveTables(question: string, schema: DatabaseSchema, limit: number): TableRetrieval {
  const words = new Set(tokenize(question));
  const ranked = schema.tables
    .map((table, index) => ({ table, index, score: scoreTable(table, words) }))
    // Ties keep the schema's order, so results are stable.
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const matched = ranked.filter((entry) => entry.score > 0);
  const chosen = (matched.length > 0 ? matched : ranked).slice(0, limit);
  const chosenNames = new Set(chosen.map((entry) => entry.table.name));
  return {
    tables: chosen.map(({ table, score }) => ({
      name: table.name,
      description: table.description,
      score,
      columns: table.columns,
    })),
    otherTables: schema.tables.map((table) => table.name).filter((name) => !chosenNames.has(name)),
    ...(matched.length === 0
      ? { note: 'No table matched a word of the question; these are the first tables of the schema. Try other words.' }
      : {}),
  };
}
