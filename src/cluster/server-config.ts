import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ClusterPorts } from './ports.js';
import type { PrivatePostgres } from './postgres.js';
import type { TemporalService } from './services.js';
import { projectRoot } from '../project-root.js';
import type { ClusterTools } from './tools.js';

/**
 * The server's configuration, shared with docker-compose.yml: `codeloop.yaml` is a template the server renders itself
 * from environment variables, `run-service.sh` starts one service from it, and `dynamic-config.yaml` holds the
 * settings the server reads while it runs. Compose mounts this directory.
 */
export const SERVER_CONFIG_SOURCE = path.join(projectRoot, 'deploy', 'temporal');
export const SERVER_CONFIG_FILES = ['codeloop.yaml', 'run-service.sh', 'dynamic-config.yaml'] as const;

/** The schema one-shot, shared with docker-compose.yml too. */
export const SCHEMA_SCRIPT = path.join(projectRoot, 'deploy', 'temporal-schema.sh');

/**
 * Copies the configuration into the cluster's data directory, so that every service of a running cluster, restarted
 * one at a time, reads the same configuration whatever happens to the checkout meanwhile. Returns the directory.
 */
export function installServerConfig(dataDir: string, source = SERVER_CONFIG_SOURCE): string {
  const dir = path.join(dataDir, 'temporal');
  mkdirSync(dir, { recursive: true });
  for (const file of SERVER_CONFIG_FILES) {
    const from = path.join(source, file);
    if (existsSync(from)) copyFileSync(from, path.join(dir, file));
    else rmSync(path.join(dir, file), { force: true });
  }
  return dir;
}

/**
 * The variables `codeloop.yaml` reads, for one host: every service binds 127.0.0.1 and tells the others that address.
 * Only what the server needs is passed: none of this process's secrets reach it.
 */
export function serverEnvironment(tools: ClusterTools, ports: ClusterPorts, postgres: PrivatePostgres): NodeJS.ProcessEnv {
  const { history, matching, frontend, worker } = ports.services;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_SERVER: tools.server,
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(postgres.port),
    POSTGRES_USER: postgres.user,
    POSTGRES_PWD: postgres.password ?? '',
    FRONTEND_GRPC_PORT: String(frontend.grpc),
    FRONTEND_HTTP_PORT: String(frontend.http),
    FRONTEND_MEMBERSHIP_PORT: String(frontend.membership),
    HISTORY_GRPC_PORT: String(history.grpc),
    HISTORY_MEMBERSHIP_PORT: String(history.membership),
    MATCHING_GRPC_PORT: String(matching.grpc),
    MATCHING_MEMBERSHIP_PORT: String(matching.membership),
    WORKER_GRPC_PORT: String(worker.grpc),
    WORKER_MEMBERSHIP_PORT: String(worker.membership),
  };
}

/** `run-service.sh <service>` execs the server in place, so the pid is the server's and its command line says which. */
export function serviceCommand(configDir: string, service: TemporalService): { command: string; args: string[]; marks: string[] } {
  return { command: '/bin/sh', args: [path.join(configDir, 'run-service.sh'), service], marks: [configDir, service] };
}

/** The variables `deploy/temporal-schema.sh` reads (temporal-sql-tool's own). */
export function schemaEnvironment(tools: ClusterTools, postgres: PrivatePostgres): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_SQL_TOOL: tools.sqlTool,
    SQL_HOST: '127.0.0.1',
    SQL_PORT: String(postgres.port),
    SQL_USER: postgres.user,
    SQL_PASSWORD: postgres.password ?? '',
  };
}
