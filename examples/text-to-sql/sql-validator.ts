// The PostgreSQL build alone: the package's main entry bundles every dialect (about 2.5 MB of parser to load).
import { Parser } from 'node-sql-parser/build/postgresql';
import { ToolInputError } from 'durable-react-agent';
import type { DatabaseSchema, TableSchema } from './schema';

/** What kind of problem a query has; callers branch on this, the message is for the model. */
export type SqlProblemKind = 'syntax' | 'not_select' | 'unknown_table' | 'unknown_column' | 'unknown_qualifier';

/** One problem found in a query, worded so a model can fix it. */
export interface SqlProblem {
  kind: SqlProblemKind;
  message: string;
}

/**
 * The verdict on a query: the tables and columns it reads when valid (with warnings about what may still fail,
 * such as an unqualified column two tables share), else every problem found.
 */
export type SqlValidation =
  { valid: true; tables: string[]; columns: string[]; warnings?: string[] } | { valid: false; problems: SqlProblem[] };

/** Thrown by tools that refuse a query; the message lists every problem, one per line. */
export class SqlValidationError extends ToolInputError {
  override readonly name = 'SqlValidationError';
  /** `context` (e.g. "not submitted") leads the message when given. */
  constructor(
    readonly problems: readonly SqlProblem[],
    context?: string,
  ) {
    const lines = problems.map((problem) => problem.message);
    super(context === undefined ? lines.join('\n') : [`${context}:`, ...lines].join('\n'));
  }
}

const DIALECT = { database: 'PostgresQL' } as const;
const parser = new Parser();
/** node-sql-parser's marker for `*` in its column lists. */
const STAR = '(.*)';
/** Expected-token lists of syntax errors are cut to this many entries: the full list can hold a hundred. */
const MAX_EXPECTED_SHOWN = 8;

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names the query defines itself: CTEs, derived-table and function aliases (tables), select-list aliases (columns). */
interface LocalNames {
  tables: Set<string>;
  columns: Set<string>;
}

function collectLocalNames(node: unknown, names: LocalNames): void {
  if (Array.isArray(node)) {
    for (const item of node) collectLocalNames(item, names);
    return;
  }
  if (!isRecord(node)) return;
  if (Array.isArray(node.with)) {
    for (const cte of node.with) {
      if (!isRecord(cte)) continue;
      const name = isRecord(cte.name) ? cte.name.value : undefined;
      if (typeof name === 'string') names.tables.add(name.toLowerCase());
      // `WITH t(a, b) AS (...)` names its columns: they come back as column references.
      if (Array.isArray(cte.columns)) for (const column of cte.columns) addColumnRefName(column, names.columns);
    }
  }
  if (node.type === 'select' && Array.isArray(node.columns)) {
    for (const column of node.columns) {
      if (isRecord(column) && typeof column.as === 'string') names.columns.add(column.as.toLowerCase());
    }
  }
  if (Array.isArray(node.from)) {
    for (const item of node.from) {
      // An alias without a base table belongs to a subquery or a function such as generate_series.
      if (isRecord(item) && typeof item.table !== 'string' && typeof item.as === 'string')
        names.tables.add(item.as.toLowerCase());
    }
  }
  for (const value of Object.values(node)) collectLocalNames(value, names);
}

function addColumnRefName(column: unknown, into: Set<string>): void {
  const expr =
    isRecord(column) && isRecord(column.column) && isRecord(column.column.expr) ? column.column.expr.value : undefined;
  if (typeof expr === 'string') into.add(expr.toLowerCase());
}

/** Refuses anything but one plain SELECT: writes, DDL, grants, and `SELECT ... INTO` (which creates a table). */
function findWrites(statements: readonly unknown[], tableList: readonly string[]): string[] {
  const kinds = new Set<string>();
  for (const statement of statements) {
    const type = isRecord(statement) && typeof statement.type === 'string' ? statement.type : 'unknown';
    if (type !== 'select') kinds.add(type.toUpperCase());
    else if (isRecord(statement) && isRecord(statement.into) && statement.into.expr) kinds.add('SELECT ... INTO');
  }
  for (const entry of tableList) {
    const operation = entry.split('::')[0] ?? '';
    if (operation.toLowerCase() !== 'select') kinds.add(operation.toUpperCase());
  }
  return [...kinds];
}

interface SyntaxErrorLike {
  message: string;
  location?: { start?: { line?: number; column?: number } };
}

function syntaxProblem(error: unknown): SqlProblem {
  const { message, location } = (error instanceof Error ? error : new Error(String(error))) as SyntaxErrorLike;
  const where =
    location?.start?.line !== undefined ? ` at line ${location.start.line}, column ${location.start.column}` : '';
  const parts = /^Expected (.*) but (.*) found\.$/s.exec(message);
  let text = message;
  if (parts) {
    const expected = (parts[1] ?? '').split(/, (?:or )?/);
    const shown =
      expected.length > MAX_EXPECTED_SHOWN
        ? `${expected.slice(0, MAX_EXPECTED_SHOWN).join(', ')}, … (${expected.length} in all)`
        : parts[1];
    text = `Expected ${shown} but ${parts[2]} found.`;
  }
  return { kind: 'syntax', message: `syntax error${where}: ${text} Fix the SQL and validate it again.` };
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate within a typo's reach (one edit per three letters), for a "did you mean" hint. */
function closest(name: string, candidates: readonly string[]): string | undefined {
  const ranked = candidates.map((candidate) => ({ candidate, distance: editDistance(name, candidate) }));
  ranked.sort((a, b) => a.distance - b.distance);
  const best = ranked[0];
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.candidate : undefined;
}

const columnNames = (table: TableSchema): string[] => table.columns.map((column) => column.name);
const hasColumn = (table: TableSchema, column: string): boolean =>
  table.columns.some((candidate) => candidate.name === column);
const listColumns = (table: TableSchema): string => `columns of ${table.name}: ${columnNames(table).join(', ')}`;

/** Where the missing column really is: a table already in the query, another table to join, or a near spelling. */
function columnHint(
  column: string,
  searched: readonly TableSchema[],
  inQuery: readonly TableSchema[],
  schema: DatabaseSchema,
): string {
  const owners = schema.tables.filter((table) => !searched.includes(table) && hasColumn(table, column));
  const present = owners.filter((table) => inQuery.includes(table)).map((table) => `${table.name}.${column}`);
  if (present.length > 0) return ` (did you mean ${present.join(' or ')}?)`;
  if (owners.length > 0)
    return ` (${owners.map((table) => table.name).join(' and ')} ${owners.length > 1 ? 'have' : 'has'} a column ${column}: join it)`;
  const typo = closest(column, [...new Set(searched.flatMap(columnNames))]);
  return typo ? ` (did you mean ${typo}?)` : '';
}

/** "unknown column Y in table X; columns of X: ...", with a hint; `searched` are the tables the column was looked up in. */
function unknownColumn(
  column: string,
  searched: readonly TableSchema[],
  inQuery: readonly TableSchema[],
  schema: DatabaseSchema,
): SqlProblem {
  const hint = columnHint(column, searched, inQuery, schema);
  if (searched.length === 0)
    return { kind: 'unknown_column', message: `unknown column ${column}: the query reads no table${hint}` };
  const names = searched.map((table) => table.name).join(', ');
  const where = searched.length === 1 ? `table ${names}` : `tables ${names}`;
  return {
    kind: 'unknown_column',
    message: `unknown column ${column} in ${where}${hint}; ${searched.map(listColumns).join('; ')}`,
  };
}

/**
 * Parses `sql` as PostgreSQL and checks it against `schema`: one SELECT only, every table known, every column in a
 * table of the query (aliases resolved by the parser). Scoping is per query, not per subquery, so a column of a
 * table read only in a subquery is accepted in the outer query too.
 */
export function validateSql(sql: string, schema: DatabaseSchema): SqlValidation {
  let parsed: ReturnType<Parser['parse']>;
  try {
    parsed = parser.parse(sql, DIALECT);
  } catch (error) {
    return { valid: false, problems: [syntaxProblem(error)] };
  }
  const statements: unknown[] = Array.isArray(parsed.ast) ? parsed.ast : [parsed.ast];
  if (statements.length === 0)
    return { valid: false, problems: [{ kind: 'syntax', message: 'the query is empty: write one SELECT statement' }] };
  const writes = findWrites(statements, parsed.tableList);
  if (writes.length > 0) {
    return {
      valid: false,
      problems: [
        {
          kind: 'not_select',
          message: `only SELECT queries are allowed (found ${writes.join(', ')}); rewrite it as a single read-only SELECT`,
        },
      ],
    };
  }
  if (statements.length > 1) {
    return {
      valid: false,
      problems: [{ kind: 'not_select', message: `found ${statements.length} statements: submit exactly one SELECT` }],
    };
  }

  const local: LocalNames = { tables: new Set(), columns: new Set() };
  collectLocalNames(statements, local);
  const byName = new Map(schema.tables.map((table) => [table.name.toLowerCase(), table]));
  const problems: SqlProblem[] = [];
  const inQuery: TableSchema[] = [];
  const unknownTables = new Set<string>();
  for (const entry of parsed.tableList) {
    const name = (entry.split('::')[2] ?? '').toLowerCase();
    const table = byName.get(name);
    if (table) {
      if (!inQuery.includes(table)) inQuery.push(table);
    } else if (!local.tables.has(name) && !unknownTables.has(name)) {
      unknownTables.add(name);
      const typo = closest(name, [...byName.keys()]);
      const hint = typo ? ` (did you mean ${typo}?)` : '';
      problems.push({
        kind: 'unknown_table',
        message: `unknown table ${name}${hint}; known tables: ${schema.tables.map((t) => t.name).join(', ')}`,
      });
    }
  }

  const columns = new Set<string>();
  const warnings: string[] = [];
  for (const entry of parsed.columnList) {
    const [, qualifierText = 'null', columnText = ''] = entry.split('::');
    const column = columnText.toLowerCase();
    const qualifier = qualifierText === 'null' ? null : qualifierText.toLowerCase();
    if (qualifier === null) {
      if (column === STAR) columns.add('*');
      else if (local.columns.has(column) || local.tables.has(column)) continue;
      else {
        const owners = inQuery.filter((table) => hasColumn(table, column));
        if (owners.length === 0) problems.push(unknownColumn(column, inQuery, inQuery, schema));
        else if (owners.length === 1) columns.add(`${owners[0]?.name}.${column}`);
        else {
          // A warning, not a problem: the tables may sit in different subqueries, which this check does not scope.
          columns.add(column);
          const names = owners.map((table) => table.name);
          warnings.push(
            `column ${column} is in ${names.join(' and ')}: qualify it (e.g. ${names[0]}.${column}) if they share a FROM clause`,
          );
        }
      }
      continue;
    }
    if (local.tables.has(qualifier) || unknownTables.has(qualifier)) continue;
    const table = byName.get(qualifier);
    if (!table) {
      const known = inQuery.map((candidate) => candidate.name).join(', ') || 'none';
      problems.push({
        kind: 'unknown_qualifier',
        message: `unknown table or alias ${qualifier} in ${qualifier}.${column}; declare it in FROM/JOIN (tables in the query: ${known})`,
      });
    } else if (!inQuery.includes(table)) {
      problems.push({
        kind: 'unknown_qualifier',
        message: `table ${table.name} is used in ${table.name}.${column} but is not in FROM/JOIN: add it`,
      });
    } else if (column === STAR) {
      columns.add(`${table.name}.*`);
    } else if (!hasColumn(table, column)) {
      problems.push(unknownColumn(column, [table], inQuery, schema));
    } else {
      columns.add(`${table.name}.${column}`);
    }
  }
  if (problems.length > 0) return { valid: false, problems };
  const tables = inQuery.map((table) => table.name);
  return warnings.length > 0
    ? { valid: true, tables, columns: [...columns], warnings }
    : { valid: true, tables, columns: [...columns] };
}
