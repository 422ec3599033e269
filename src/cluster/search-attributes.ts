import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../shared/constants.js';

export interface SearchAttributeRegistration {
  name: string;
  action: 'registered' | 'already registered';
}

/**
 * Registers codeloop's search attributes (all Keyword) in `namespace` through the operator service, leaving those
 * already there alone, so it is safe to run again. `codeloop setup` and `codeloop cluster up` both use it.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<SearchAttributeRegistration[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const names = Object.values(SEARCH_ATTRIBUTES);
  const missing = names.filter((name) => !(name in (existing.customAttributes ?? {})));
  if (missing.length > 0) {
    const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
    });
  }
  return names.map((name) => ({ name, action: missing.includes(name) ? 'registered' : 'already registered' }));
}
