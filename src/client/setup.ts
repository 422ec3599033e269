import { Connection } from '@temporalio/client';
import { registerSearchAttributes, type SearchAttributeRegistration } from '../cluster/search-attributes.js';
import { CliError, emit, type OutputOptions } from './output.js';
import { cliConfig } from './session.js';

export interface SetupReport {
  address: string;
  namespace: string;
  retention?: string;
  searchAttributes: SearchAttributeRegistration[];
}

/**
 * `codeloop setup`, for an existing cluster: checks the connection and the namespace, and registers codeloop's search
 * attributes through the operator service. What is already there is left alone, so it is safe to run again.
 */
export async function setupCluster(options: OutputOptions): Promise<void> {
  const { address, namespace } = cliConfig().temporal;
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: 5_000 });
  } catch (error) {
    throw new CliError(`cannot reach Temporal at ${address} (${(error as Error).message}); set TEMPORAL_ADDRESS to your frontend`);
  }
  try {
    const described = await connection.workflowService.describeNamespace({ namespace }).catch((error: Error) => {
      throw new CliError(`namespace ${namespace} is not usable on ${address}: ${error.message}; create it or set TEMPORAL_NAMESPACE`);
    });
    const seconds = Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? 0);
    const report: SetupReport = {
      address,
      namespace,
      retention: seconds ? `${Math.round(seconds / 86_400)} days` : undefined,
      searchAttributes: await registerSearchAttributes(connection, namespace),
    };
    emit(options, report, (value) =>
      [
        `connected to ${value.address}, namespace ${value.namespace}${value.retention ? ` (retention ${value.retention})` : ''}`,
        ...value.searchAttributes.map((attribute) => `  ${attribute.name} (Keyword): ${attribute.action}`),
        'ready: start workers with `npm run worker` and TEMPORAL_ADDRESS set to this server',
      ].join('\n'),
    );
  } finally {
    await connection.close();
  }
}
