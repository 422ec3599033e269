/**
 * Temporal's four server roles, each run as a process of its own, in the order they start: history first, since the
 * first service to start on a new database writes the cluster's metadata and the others would race it.
 */
export const TEMPORAL_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/** Every process `codeloop cluster` runs besides PostgreSQL: the four services and the Web UI. */
export type ClusterProcessName = TemporalService | 'ui';

/** The name of a Temporal service's container in docker-compose.yml. */
export const composeServiceName = (service: TemporalService): string => `temporal-${service}`;

/** The default namespace the cluster creates, and its retention: long enough to inspect last month's runs. */
export const DEFAULT_NAMESPACE = 'default';
export const NAMESPACE_RETENTION_DAYS = 30;
