import { describe, expect, it } from 'vitest';
import { submissionOf, TEXT_TO_SQL_CONFIG } from '../../examples/text-to-sql/agent';
import { SAMPLE_SCHEMA } from '../../examples/text-to-sql/schema';
import { createTextToSqlTools, SUBMISSION_ACCEPTED } from '../../examples/text-to-sql/tools';
import { useHarness } from '../support/harness';

const tools = createTextToSqlTools(SAMPLE_SCHEMA);
const harness = useHarness({ tools });

/** Runs a tool the way the runTool activity does: the schema validates, then the handler runs. */
async function callTool(name: string, args: unknown): Promise<unknown> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.handler(tool.schema.parse(args), { idempotencyKey: 't', signal: new AbortController().signal });
}

const validate = (sql: string) => callTool('validate_sql', { sql });

/** The error a call rejects with; fails the test when it resolves. */
async function rejectionOf(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
}
const ORDERS_COLUMNS = 'columns of orders: id, customer_id, total, status, created_at';

describe('validate_sql', () => {
  it('reports a syntax error with the parser message and position', async () => {
    await expect(validate('SELECT FROM WHERE')).rejects.toThrow(
      /^syntax error at line 1, column \d+: Expected .* but "W" found\./,
    );
  });

  it('shortens the parser message when it expects many tokens', async () => {
    const error = await rejectionOf(validate('SELECT * FROM orders WHERE'));
    expect(error.message).toMatch(
      /^syntax error at line 1, column 27: Expected .*, … \(\d+ in all\) but end of input found\./,
    );
    expect(error.message.length).toBeLessThan(300);
  });

  it('names unknown tables, lists the known ones and suggests a near spelling', async () => {
    await expect(validate('SELECT id FROM clients')).rejects.toThrow(
      'unknown table clients; known tables: customers, orders, order_items, products',
    );
    await expect(validate('SELECT * FROM ordrs')).rejects.toThrow(
      'unknown table ordrs (did you mean orders?); known tables:',
    );
  });

  it('names unknown columns with the columns of their table', async () => {
    await expect(validate('SELECT amount FROM orders')).rejects.toThrow(
      `unknown column amount in table orders; ${ORDERS_COLUMNS}`,
    );
    await expect(validate('SELECT totl FROM orders')).rejects.toThrow(
      `unknown column totl in table orders (did you mean total?); ${ORDERS_COLUMNS}`,
    );
    await expect(validate('SELECT category FROM orders')).rejects.toThrow(
      'unknown column category in table orders (products has a column category: join it)',
    );
  });

  it('resolves table aliases before checking columns', async () => {
    await expect(validate('SELECT o.total, o.status FROM orders AS o')).resolves.toEqual({
      valid: true,
      tables: ['orders'],
      columns: ['orders.total', 'orders.status'],
    });
    await expect(validate('SELECT o.amount FROM orders o')).rejects.toThrow(
      `unknown column amount in table orders; ${ORDERS_COLUMNS}`,
    );
    await expect(validate('SELECT o.name FROM orders o JOIN customers c ON c.id = o.customer_id')).rejects.toThrow(
      'unknown column name in table orders (did you mean customers.name?)',
    );
    await expect(validate('SELECT x.total FROM orders o')).rejects.toThrow('unknown table or alias x in x.total');
  });

  it('accepts names the query defines: CTEs, derived tables and select-list aliases', async () => {
    const cte =
      'WITH big AS (SELECT id, total FROM orders WHERE total > 100) SELECT b.total AS t FROM big b ORDER BY t';
    await expect(validate(cte)).resolves.toMatchObject({ valid: true, tables: ['orders'] });
    await expect(validate('SELECT x.total FROM (SELECT total FROM orders) AS x')).resolves.toMatchObject({
      valid: true,
    });
  });

  it('warns about an unqualified column that two tables of the query share', async () => {
    await expect(validate('SELECT id FROM orders o JOIN customers c ON c.id = o.customer_id')).resolves.toMatchObject({
      valid: true,
      warnings: ['column id is in orders and customers: qualify it (e.g. orders.id) if they share a FROM clause'],
    });
  });

  it('refuses every statement that is not a single read-only SELECT', async () => {
    const writes = {
      INSERT: 'INSERT INTO orders (id, total) VALUES (1, 10)',
      UPDATE: "UPDATE orders SET status = 'paid'",
      DELETE: 'DELETE FROM orders',
      DROP: 'DROP TABLE orders',
      ALTER: 'ALTER TABLE orders ADD COLUMN note text',
      TRUNCATE: 'TRUNCATE orders',
      CREATE: 'CREATE TABLE copy (id int)',
      'SELECT ... INTO': 'SELECT * INTO copy FROM orders',
    };
    for (const [kind, sql] of Object.entries(writes)) {
      await expect(validate(sql), sql).rejects.toThrow(`only SELECT queries are allowed (found ${kind})`);
    }
    await expect(validate('SELECT 1; DELETE FROM orders')).rejects.toThrow(
      'only SELECT queries are allowed (found DELETE)',
    );
    await expect(validate('SELECT 1; SELECT 2')).rejects.toThrow('found 2 statements: submit exactly one SELECT');
  });

  it('reports every problem of a query at once', async () => {
    const error = await rejectionOf(
      validate('SELECT o.amount, nope FROM orders o JOIN clients c ON c.id = o.customer_id'),
    );
    expect(error.name).toBe('SqlValidationError');
    expect(error.message.split('\n')).toEqual([
      'unknown table clients; known tables: customers, orders, order_items, products',
      `unknown column amount in table orders; ${ORDERS_COLUMNS}`,
      `unknown column nope in table orders; ${ORDERS_COLUMNS}`,
    ]);
  });

  it('accepts a valid join and lists the tables and columns it reads', async () => {
    const sql =
      'SELECT p.category, SUM(oi.quantity * oi.price) AS revenue FROM order_items oi ' +
      'JOIN products p ON p.id = oi.product_id GROUP BY p.category ORDER BY revenue DESC';
    await expect(validate(sql)).resolves.toEqual({
      valid: true,
      tables: ['order_items', 'products'],
      columns: [
        'products.category',
        'order_items.quantity',
        'order_items.price',
        'products.id',
        'order_items.product_id',
      ],
    });
  });
});

describe('retrieve_tables and submit_answer', () => {
  it('ranks tables by the words of the question', async () => {
    const byCategory = (await callTool('retrieve_tables', { question: 'Revenue per product category' })) as {
      tables: Array<{ name: string }>;
    };
    expect(byCategory.tables[0]?.name).toBe('products');
    const byCountry = (await callTool('retrieve_tables', {
      question: 'How many customers per country?',
      limit: 1,
    })) as {
      tables: Array<{ name: string; columns: Array<{ name: string }> }>;
      otherTables: string[];
    };
    expect(byCountry.tables.map((table) => table.name)).toEqual(['customers']);
    expect(byCountry.tables[0]?.columns.map((column) => column.name)).toContain('country');
    expect(byCountry.otherTables).toEqual(['orders', 'order_items', 'products']);
  });

  it('says so when no table matches, and still returns tables', async () => {
    const result = (await callTool('retrieve_tables', { question: 'weather forecast tomorrow' })) as {
      tables: unknown[];
      note?: string;
    };
    expect(result.tables).toHaveLength(3);
    expect(result.note).toContain('No table matched');
  });

  it('submit_answer returns the submission and refuses invalid SQL or confidence', async () => {
    const submission = { query: 'SELECT COUNT(*) FROM orders', explanation: 'Counts every order.', confidence: 0.8 };
    await expect(callTool('submit_answer', submission)).resolves.toEqual({
      status: SUBMISSION_ACCEPTED,
      ...submission,
    });
    await expect(callTool('submit_answer', { ...submission, query: 'DROP TABLE orders' })).rejects.toThrow(
      'not submitted, fix the query first:\nonly SELECT queries are allowed (found DROP)',
    );
    await expect(callTool('submit_answer', { ...submission, confidence: 1.5 })).rejects.toThrow(
      /confidence|too big|<=1/i,
    );
  });
});

const QUESTION = 'What was the total revenue of paid orders per customer country?';
const WRONG_SQL =
  'SELECT c.country, SUM(o.amount) AS revenue FROM customers c JOIN orders o ON o.customer_id = c.id ' +
  "WHERE o.status = 'paid' GROUP BY c.country";
const FIXED_SQL = WRONG_SQL.replace('o.amount', 'o.total');
const EXPLANATION = 'Sums the total of paid orders, grouped by the country of the customer who placed them.';

describe('the text-to-SQL agent as a durable workflow', () => {
  it('retrieves tables, fixes the column validate_sql names, validates and submits', async () => {
    const run = await harness.start(
      [
        {
          thought: 'I need the tables holding customers, their countries and order amounts.',
          toolCalls: [{ name: 'retrieve_tables', args: { question: QUESTION } }],
        },
        {
          thought: 'Orders join customers on customer_id; I sum the amount of paid orders per country.',
          toolCalls: [{ name: 'validate_sql', args: { sql: WRONG_SQL } }],
        },
        {
          thought: 'The orders table has no amount column; the charged amount is total, so I use o.total.',
          toolCalls: [{ name: 'validate_sql', args: { sql: FIXED_SQL } }],
        },
        {
          thought: 'The corrected query is valid, so I submit it with an explanation and my confidence.',
          toolCalls: [{ name: 'submit_answer', args: { query: FIXED_SQL, explanation: EXPLANATION, confidence: 0.9 } }],
        },
      ],
      QUESTION,
      TEXT_TO_SQL_CONFIG,
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('custom');
    expect(result.trace.terminationDetail).toContain('submit_answer');
    expect(result.finalAnswer).toBeNull(); // forceFinalAnswer: false: no model call after the submission
    expect(harness.model.requests(run.modelName)).toHaveLength(4);

    const [retrieval, invalid, valid, submitted] = result.trace.steps;
    expect(retrieval?.isError).toBe(false);
    expect(
      (retrieval?.observationData as { tables: Array<{ name: string }> }).tables.map((table) => table.name),
    ).toEqual(expect.arrayContaining(['customers', 'orders']));
    expect(invalid?.isError).toBe(true);
    expect(invalid?.observation).toMatch(/^\[error\] validate_sql\(/);
    expect(invalid?.observation).toContain(`: unknown column amount in table orders; ${ORDERS_COLUMNS}`);
    expect(valid?.observationData).toEqual({
      valid: true,
      tables: ['customers', 'orders'],
      columns: ['customers.country', 'orders.total', 'orders.customer_id', 'customers.id', 'orders.status'],
    });
    expect(submitted?.observationData).toEqual({
      status: SUBMISSION_ACCEPTED,
      query: FIXED_SQL,
      explanation: EXPLANATION,
      confidence: 0.9,
    });
    expect(submissionOf(result)).toEqual({ query: FIXED_SQL, explanation: EXPLANATION, confidence: 0.9 });
    // SQL the validator refuses is an argument problem the model can fix, not a failing tool.
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual(['invalid_arguments']);

    // The model saw the validator's feedback as the result of its call before it fixed the query.
    const toolMessages = harness.model
      .requests(run.modelName)[2]
      ?.messages.filter((message) => message.role === 'tool');
    expect(String(toolMessages?.at(-1)?.content)).toContain('unknown column amount in table orders');
  });

  it('refuses destructive statements, and a refused submission does not end the run', async () => {
    const cleanup = "DELETE FROM orders WHERE status = 'cancelled'";
    const readOnly = "SELECT id FROM orders WHERE status = 'cancelled'";
    const thought = 'The user asked to remove cancelled orders, but only a read-only query is allowed here.';
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'validate_sql', args: { sql: cleanup } }] },
        {
          thought,
          toolCalls: [
            { name: 'submit_answer', args: { query: 'DROP TABLE orders', explanation: 'drops it', confidence: 0.2 } },
          ],
        },
        {
          thought,
          toolCalls: [
            {
              name: 'submit_answer',
              args: { query: readOnly, explanation: 'Lists the cancelled orders instead.', confidence: 0.6 },
            },
          ],
        },
      ],
      'Delete all cancelled orders',
      TEXT_TO_SQL_CONFIG,
    );
    const result = await run.result();
    const [refusedValidation, refusedSubmission] = result.trace.steps;
    expect(refusedValidation?.observation).toContain('only SELECT queries are allowed (found DELETE)');
    expect(refusedSubmission?.isError).toBe(true);
    expect(refusedSubmission?.observation).toContain(
      'not submitted, fix the query first:\nonly SELECT queries are allowed (found DROP)',
    );
    expect(result.trace.steps).toHaveLength(3);
    expect(result.terminationReason).toBe('custom');
    expect(submissionOf(result)?.query).toBe(readOnly);
  });

  it('limits.maxCallsPerTool refuses a 4th retrieve_tables and a 5th validate_sql call', async () => {
    const thought = 'I still need more detail about the schema before writing the final query.';
    const retrieve = (question: string) => ({ thought, toolCalls: [{ name: 'retrieve_tables', args: { question } }] });
    const check = (sql: string) => ({ thought, toolCalls: [{ name: 'validate_sql', args: { sql } }] });
    const run = await harness.start(
      [
        retrieve('customers'),
        retrieve('orders'),
        retrieve('products'),
        retrieve('order items'),
        check('SELECT 1'),
        check('SELECT 2'),
        check('SELECT 3'),
        check('SELECT 4'),
        check('SELECT 5'),
        { answer: 'I could not finish within the call limits.' },
      ],
      QUESTION,
      TEXT_TO_SQL_CONFIG,
    );
    const result = await run.result();
    const steps = result.trace.steps;
    expect(steps[2]?.isError).toBe(false);
    expect(steps[3]?.observation).toContain('this run may call retrieve_tables at most 3 times');
    expect(steps[7]?.isError).toBe(false);
    expect(steps[8]?.observation).toContain('this run may call validate_sql at most 4 times');
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual(['tool_limit', 'tool_limit']);
    expect(result.terminationReason).toBe('success');
    expect(submissionOf(result)).toBeNull();
  });
});
