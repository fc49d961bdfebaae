import { SAMPLE_SCHEMA } from './schema';
import { createTextToSqlTools } from './tools';

/** The example's tools for `durable-react-agent eval --suite evals/text-to-sql.json --tools-module <this file>`. */
export const tools = createTextToSqlTools(SAMPLE_SCHEMA);
