/** One column of a table: its SQL type, what it means, and the column it points at when it is a foreign key. */
export interface ColumnSchema {
  name: string;
  type: string;
  description: string;
  /** `table.column` this column references, so the model can see how to join. */
  references?: string;
}

/** One table: a one-line description and its columns. */
export interface TableSchema {
  name: string;
  description: string;
  columns: readonly ColumnSchema[];
}

/** A database schema as plain data: what retrieval searches and what validation checks queries against. */
export interface DatabaseSchema {
  tables: readonly TableSchema[];
}

/** A small shop database (PostgreSQL flavour): customers place orders of products. */
export const SAMPLE_SCHEMA: DatabaseSchema = {
  tables: [
    {
      name: 'customers',
      description: 'People and companies who have an account with the shop.',
      columns: [
        { name: 'id', type: 'integer', description: 'Primary key of the customer.' },
        { name: 'name', type: 'text', description: 'Full name of the customer.' },
        { name: 'email', type: 'text', description: 'Email address, unique per customer.' },
        { name: 'country', type: 'text', description: 'Two-letter ISO country code of the billing address, e.g. PT.' },
        { name: 'created_at', type: 'timestamp', description: 'When the customer signed up.' },
      ],
    },
    {
      name: 'orders',
      description: 'Purchases: one row per order a customer placed.',
      columns: [
        { name: 'id', type: 'integer', description: 'Primary key of the order.' },
        {
          name: 'customer_id',
          type: 'integer',
          description: 'The customer who placed the order.',
          references: 'customers.id',
        },
        { name: 'total', type: 'numeric(10,2)', description: 'Amount charged for the whole order, in euros.' },
        { name: 'status', type: 'text', description: "Order state: 'pending', 'paid', 'shipped' or 'cancelled'." },
        { name: 'created_at', type: 'timestamp', description: 'When the order was placed.' },
      ],
    },
    {
      name: 'order_items',
      description: 'Line items: which products an order contains, how many, and at what price.',
      columns: [
        { name: 'order_id', type: 'integer', description: 'The order this line belongs to.', references: 'orders.id' },
        {
          name: 'product_id',
          type: 'integer',
          description: 'The product sold on this line.',
          references: 'products.id',
        },
        { name: 'quantity', type: 'integer', description: 'Number of units sold on this line.' },
        { name: 'price', type: 'numeric(10,2)', description: 'Unit price in euros at the time of the sale.' },
      ],
    },
    {
      name: 'products',
      description: 'The catalogue: every product the shop sells.',
      columns: [
        { name: 'id', type: 'integer', description: 'Primary key of the product.' },
        { name: 'name', type: 'text', description: 'Product name shown in the shop.' },
        { name: 'category', type: 'text', description: "Product category, e.g. 'books', 'games', 'garden'." },
        { name: 'price', type: 'numeric(10,2)', description: 'Current list price in euros.' },
      ],
    },
  ],
};
