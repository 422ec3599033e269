import { execFileSync, spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { expect, test } from 'vitest';

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
  const rendered = execFileSync(command, [...args, '-f', 'docker-compose.yml', 'config'], { env: { ...process.env, ANTHROPIC_API_KEY: '' } }).toString();
  const config = parse(rendered) as { services: Record<string, { image?: string; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; ports?: unknown[] }> };
  const services = config.services;
  expect(Object.keys(services).sort()).toEqual(['codeloop-setup', 'codeloop-worker', 'postgresql', 'temporal', 'temporal-admin-tools', 'temporal-schema', 'temporal-ui']);
  expect(services.temporal.image).toMatch(/^temporalio\/server:/);
  expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  expect(services['temporal-ui'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
  expect(services['codeloop-worker'].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', CODELOOP_HOST_ID: 'compose-worker' });
  expect(services['codeloop-worker'].depends_on).toMatchObject({ 'codeloop-setup': { condition: 'service_completed_successfully' } });
  expect(services['codeloop-setup'].depends_on).toMatchObject({ temporal: { condition: 'service_healthy' } });
});
