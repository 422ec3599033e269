import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { parse } from 'yaml';
import { expect, inject, test } from 'vitest';
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

test.runIf(compose || required)('docker-compose.yml passes `compose config` and wires codeloop to the cluster', () => {
  expect(compose, 'CODELOOP_REQUIRE_COMPOSE=1 but neither `docker compose` nor `docker-compose` is installed').toBeDefined();
  const [command, ...args] = compose!;
  const rendered = execFileSync(command, [...args, '-f', 'docker-compose.yml', 'config'], {
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
  }).toString();
  const config = parse(rendered) as {
    services: Record<
      string,
      {
        image?: string;
        entrypoint?: string[];
        volumes?: unknown[];
        environment?: Record<string, string>;
        depends_on?: Record<string, { condition: string }>;
        ports?: unknown[];
        security_opt?: string[];
      }
    >;
  };
  const services = config.services;
  expect(Object.keys(services).sort()).toEqual([
    'codeloop-setup',
    'codeloop-worker',
    'postgresql',
    'temporal',
    'temporal-admin-tools',
    'temporal-namespace',
    'temporal-schema',
    'temporal-ui',
  ]);
  expect(services.temporal.image).toMatch(/^temporalio\/server:/);
  expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  expect(services['temporal-ui'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
  expect(services['codeloop-worker'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', CODELOOP_HOST_ID: 'compose-worker' });
  expect(services['codeloop-worker'].depends_on).toMatchObject({ 'codeloop-setup': { condition: 'service_completed_successfully' } });
  // The worker's sandbox makes namespaces and mounts a fresh /proc: Docker's defaults forbid both.
  expect(services['codeloop-worker'].security_opt?.sort()).toEqual(['apparmor=unconfined', 'seccomp=unconfined', 'systempaths=unconfined']);
  // The plain server image creates no namespace: setup waits for the one-shot that creates it, which waits for the server.
  expect(Object.keys(services['codeloop-setup'].depends_on!)).toEqual(['temporal-namespace']);
  expect(services['codeloop-setup'].depends_on).toMatchObject({ 'temporal-namespace': { condition: 'service_completed_successfully' } });
  expect(services['temporal-namespace'].depends_on).toMatchObject({ temporal: { condition: 'service_healthy' } });
  expect(services['temporal-namespace'].entrypoint).toEqual(['/bin/sh', '/temporal-namespace.sh']);
  // Compose v1 renders a bind mount as a string, v2 as an object; either way it mounts the script.
  expect(JSON.stringify(services['temporal-namespace'].volumes)).toContain('deploy/temporal-namespace.sh');
  expect(services['temporal-namespace'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
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
