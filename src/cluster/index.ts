// codeloop cluster: a PostgreSQL-backed Temporal cluster on this host, one process per service.
export { ClusterRunningError, DEFAULT_FRONTEND_PORT, DEFAULT_UI_PORT, openCluster, startCluster } from './cluster.js';
export { installClusterTools } from './install.js';
export type { PostgresShutdownMode, PrivatePostgres } from './postgres.js';
export { TEMPORAL_SERVICES, type ClusterProcessName, type TemporalService } from './services.js';
export { findClusterTools, TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from './tools.js';
export type { Cluster, ClusterOptions, ClusterStatus, ProcessStatus } from './types.js';
