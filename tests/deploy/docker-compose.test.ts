import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { parse } from 'yaml';
import { expect, inject, test } from 'vitest';
import type { PrivatePostgres } from '../../src/cluster/postgres.js';
import { SCHEMA_SCRIPT, SERVER_CONFIG_FILES, SERVER_CONFIG_SOURCE, serverEnvironment } from '../../src/cluster/server-config.js';
import { composeServiceName, NAMESPACE_RETENTION_DAYS, TEMPORAL_SERVICES } from '../../src/cluster/services.js';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from '../../src/cluster/tools.js';
import { uiEnvironment } from '../../src/cluster/web-ui.js';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import { uniqueName } from '../support/temporal.js';

/** The compose CLI that is here: the Docker plugin, else the standalone `docker-compose`. No engine is needed to parse. */
function composeCommand(): string[] | undefined {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['--version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return undefined;
}

const compose = composeCommand();
const required = process.env.CODELOOP_REQUIRE_COMPOSE === '1';
if (!compose && !required) console.warn('docker-compose.yml not checked: no compose CLI here (CI installs one and requires it)');

interface ComposeService {
  image?: string;
  entrypoint?: string[];
  volumes?: unknown[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: unknown[];
  security_opt?: string[];
}

/** `docker-compose.yml` as the compose CLI renders it: anchors merged, paths resolved. */
function renderCompose(): Record<string, ComposeService> {
  const [command, ...args] = compose!;
  const rendered = execFileSync(command, [...args, '-f', 'docker-compose.yml', 'config'], {
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
  }).toString();
  return (parse(rendered) as { services: Record<string, ComposeService> }).services;
}

/** Compose v1 renders a bind mount as a string, v2 as an object; either way this finds the host path mounted. */
const mounts = (service: ComposeService, hostPath: string) => JSON.stringify(service.volumes ?? []).includes(path.resolve(hostPath));

test.runIf(compose || required)('docker-compose.yml passes `compose config` and wires codeloop to the cluster', () => {
  expect(compose, 'CODELOOP_REQUIRE_COMPOSE=1 but neither `docker compose` nor `docker-compose` is installed').toBeDefined();
  const services = renderCompose();
  expect(Object.keys(services).sort()).toEqual([
    'codeloop-setup',
    'codeloop-worker',
    'postgresql',
    'temporal-admin-tools',
    'temporal-frontend',
    'temporal-history',
    'temporal-matching',
    'temporal-namespace',
    'temporal-schema',
    'temporal-ui',
    'temporal-worker',
  ]);
  expect(services['temporal-frontend'].ports).toHaveLength(1);
  expect(services['temporal-ui'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal-frontend:7233' });
  expect(services['codeloop-worker'].environment).toMatchObject({
    TEMPORAL_ADDRESS: 'temporal-frontend:7233',
    CODELOOP_HOST_ID: 'compose-worker',
  });
  expect(services['codeloop-worker'].depends_on).toMatchObject({ 'codeloop-setup': { condition: 'service_completed_successfully' } });
  // The worker's sandbox makes namespaces and mounts a fresh /proc: Docker's defaults forbid both.
  expect(services['codeloop-worker'].security_opt?.sort()).toEqual(['apparmor=unconfined', 'seccomp=unconfined', 'systempaths=unconfined']);
  // The plain server image creates no namespace: setup waits for the one-shot that creates it, which waits for the frontend.
  expect(Object.keys(services['codeloop-setup'].depends_on!)).toEqual(['temporal-namespace']);
  expect(services['codeloop-setup'].depends_on).toMatchObject({ 'temporal-namespace': { condition: 'service_completed_successfully' } });
  expect(services['temporal-namespace'].depends_on).toMatchObject({ 'temporal-frontend': { condition: 'service_healthy' } });
  expect(services['temporal-namespace'].entrypoint).toEqual(['/bin/sh', '/temporal-namespace.sh']);
  expect(mounts(services['temporal-namespace'], 'deploy/temporal-namespace.sh')).toBe(true);
  expect(services['temporal-namespace'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal-frontend:7233' });
});

test.runIf(compose || required)('docker-compose.yml runs the topology `codeloop cluster up` runs, from the same files and releases', () => {
  const services = renderCompose();
  const template = readFileSync(path.join(SERVER_CONFIG_SOURCE, 'codeloop.yaml'), 'utf8');
  const readByTemplate = (name: string) => template.includes(`env "${name}"`);

  // One container per Temporal service, each running run-service.sh with codeloop.yaml, as src/cluster runs a process each.
  for (const service of TEMPORAL_SERVICES) {
    const container = services[composeServiceName(service)];
    expect(container, `${composeServiceName(service)} is missing`).toBeDefined();
    expect(container.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    expect(container.entrypoint).toEqual(['/bin/sh', '/etc/codeloop/temporal/run-service.sh', service]);
    expect(mounts(container, path.relative('.', SERVER_CONFIG_SOURCE))).toBe(true);
    expect(Object.keys(container.environment ?? {}).filter((name) => !readByTemplate(name))).toEqual([]);
  }
  expect(SERVER_CONFIG_FILES.filter((file) => !existsSync(path.join(SERVER_CONFIG_SOURCE, file)))).toEqual([]);
  // Every variable the local cluster sets is one the template (or run-service.sh) reads: the two cannot configure apart.
  const local = serverEnvironment(
    { server: '/bin/temporal-server', sqlTool: '/bin/temporal-sql-tool' },
    {
      services: {
        history: { grpc: 1, membership: 2 },
        matching: { grpc: 3, membership: 4 },
        frontend: { grpc: 5, membership: 6, http: 7 },
        worker: { grpc: 8, membership: 9 },
      },
      postgres: 10,
    },
    { port: 10, user: 'temporal', password: 'pw' } as PrivatePostgres,
  );
  const runService = readFileSync(path.join(SERVER_CONFIG_SOURCE, 'run-service.sh'), 'utf8');
  expect(
    Object.keys(local).filter((name) => !['PATH', 'HOME'].includes(name) && !readByTemplate(name) && !runService.includes(name)),
  ).toEqual([]);
  // History starts first in both: the first service on a new database writes the cluster metadata the others need.
  expect(TEMPORAL_SERVICES[0]).toBe('history');
  for (const service of TEMPORAL_SERVICES.slice(1))
    expect(JSON.stringify(services[composeServiceName(service)].depends_on)).toMatch(/temporal-(history|frontend)/);

  // The schema one-shot is the script the local cluster runs, with temporal-sql-tool of the same release.
  expect(mounts(services['temporal-schema'], path.relative('.', SCHEMA_SCRIPT))).toBe(true);
  expect(services['temporal-schema'].image).toMatch(
    new RegExp(`^temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')}-`),
  );
  expect(Object.keys(services['temporal-schema'].environment ?? {}).sort()).toEqual(['SQL_HOST', 'SQL_PASSWORD', 'SQL_PORT', 'SQL_USER']);

  // The Web UI of the release the local cluster builds, configured by the variables it sets.
  expect(services['temporal-ui'].image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
  const uiVariables = Object.keys(uiEnvironment('127.0.0.1:7233', 8080));
  expect(Object.keys(services['temporal-ui'].environment ?? {}).filter((name) => !uiVariables.includes(name))).toEqual([]);

  // The same namespace retention: 30 days, in hours for the temporal CLI.
  expect(readFileSync('deploy/temporal-namespace.sh', 'utf8')).toContain(`--retention ${NAMESPACE_RETENTION_DAYS * 24}h`);
});

test('deploy/temporal-namespace.sh creates the namespace with 30-day retention, and leaves it alone the second time', async () => {
  // The admin-tools image has `temporal` on PATH; so does this run.
  const bin = mkdtempSync(path.join(tmpdir(), 'codeloop-bin-'));
  symlinkSync(findTemporalBinary()!, path.join(bin, 'temporal'));
  const namespace = uniqueName('compose');
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: namespace,
  };
  const run = () => execFileSync('/bin/sh', ['deploy/temporal-namespace.sh'], { env }).toString();

  expect(run()).toContain(`namespace ${namespace} created`);
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(30 * 86_400);
  } finally {
    await connection.close();
  }
  expect(run()).toContain(`namespace ${namespace} exists`);
});
