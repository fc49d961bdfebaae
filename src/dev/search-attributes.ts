import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AGENT_SEARCH_ATTRIBUTES } from '../shared/search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;

/**
 * Registers AgentStatus and AgentPendingTools on a server the CLI runs itself, if missing. The dev server's
 * `--search-attribute` flag only takes effect for a fresh database, so a `.data/temporal.db` from an older version
 * would otherwise refuse every run.
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = AGENT_SEARCH_ATTRIBUTES.filter(({ name }) => !(name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map(({ name, type }) => [
          name,
          type === 'keyword'
            ? IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
            : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
        ]),
      ),
    });
  } finally {
    await connection.close();
  }
}
