import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ClusterTools } from './tools.js';

type UiTools = NonNullable<ClusterTools['ui']>;

/**
 * The Web UI's configuration directory in the data directory: the UI server's own `docker.yaml` template (the one
 * `temporalio/ui` in docker-compose.yml renders from the same variables), under a `base.yaml` that keeps it on
 * loopback, where the template would listen on every interface.
 */
export function installUiConfig(ui: UiTools, dataDir: string): string {
  const dir = path.join(dataDir, 'ui');
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(ui.configDir, 'docker.yaml'), path.join(dir, 'docker.yaml'));
  writeFileSync(path.join(dir, 'base.yaml'), '# Written by codeloop cluster: the Web UI listens on loopback only.\nhost: 127.0.0.1\n');
  return dir;
}

export function uiCommand(ui: UiTools, configDir: string): { command: string; args: string[]; marks: string[] } {
  return { command: ui.server, args: ['--root', configDir, '--config', '.', '--env', 'docker', 'start'], marks: [configDir] };
}

/** The variables of the UI's template, as docker-compose.yml sets them for `temporalio/ui`. */
export function uiEnvironment(frontendAddress: string, port: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: frontendAddress,
    TEMPORAL_UI_PORT: String(port),
    TEMPORAL_CORS_ORIGINS: `http://localhost:${port},http://127.0.0.1:${port}`,
  };
}

/** Resolves once the UI serves its page, or rejects. */
export async function uiAnswers(url: string): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
}
