import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { registerSearchAttributes, type SearchAttributeRegistration } from './search-attributes.js';
import { DEFAULT_NAMESPACE, NAMESPACE_RETENTION_DAYS } from './services.js';
import { isGrpcCode, retryUntil } from './readiness.js';

const NOT_FOUND = 5;

export interface NamespaceSetup {
  namespace: string;
  created: boolean;
  retentionDays: number;
  searchAttributes: SearchAttributeRegistration[];
}

/**
 * Creates the `default` namespace with 30-day retention unless it exists (an existing one is left as it is, as
 * deploy/temporal-namespace.sh does for compose), then registers codeloop's search attributes in it, as `codeloop setup`.
 */
export async function setUpNamespace(connection: Connection, namespace = DEFAULT_NAMESPACE): Promise<NamespaceSetup> {
  const existing = await connection.workflowService.describeNamespace({ namespace }).catch((error: unknown) => {
    if (isGrpcCode(error, NOT_FOUND)) return undefined;
    throw error;
  });
  if (!existing) {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(`${NAMESPACE_RETENTION_DAYS} days`),
    });
  }
  // A new namespace reaches the services' caches within seconds; until then the operator service says it is unknown.
  const searchAttributes = await retryUntil(`namespace ${namespace} to be usable`, 30_000, () =>
    registerSearchAttributes(connection, namespace),
  );
  const described = await connection.workflowService.describeNamespace({ namespace });
  return {
    namespace,
    created: !existing,
    retentionDays: Math.round(Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? 0) / 86_400),
    searchAttributes,
  };
}
