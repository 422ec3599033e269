import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable } from '../activities/process/find-executable.js';
import { formatDuration } from '../text/format.js';
import {
  clusterToolsDir,
  findClusterTools,
  readInstalledVersions,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  toolPaths,
  type ClusterTools,
  type InstalledVersions,
} from './tools.js';

const SERVER_MODULE = 'go.temporal.io/server';
const UI_MODULE = 'github.com/temporalio/ui-server/v2';
/** The Web UI module declares `go 1.26.2`; the server needs 1.25. */
const GO_NEEDED = '1.26.2';

/**
 * Builds the pinned Temporal server, `temporal-sql-tool` and Web UI into `.tools/cluster/bin` with `go install`
 * through the Go module proxy, and returns them. Installed pins are kept: a second run returns at once. Go's own
 * module and build caches are used, so a rebuild after a fresh checkout reuses what was downloaded and compiled.
 * A Web UI that fails to build is recorded with the reason, and the cluster runs without it.
 */
export async function installClusterTools(log: (line: string) => void = (line) => console.error(line)): Promise<ClusterTools> {
  const installed = findClusterTools();
  const uiSettled = installed?.ui !== undefined || readInstalledVersions()?.uiFailed?.version === TEMPORAL_UI_VERSION;
  if (installed && uiSettled) return installed;

  const go = findExecutable('go');
  if (!go)
    throw new Error(
      `building the Temporal server needs Go ${GO_NEEDED} or newer, and \`go\` is not on PATH: install Go (https://go.dev/dl), then run \`npm run install-cluster\` again`,
    );
  mkdirSync(path.dirname(toolPaths.server), { recursive: true });
  const versions: InstalledVersions = readInstalledVersions() ?? { server: '' };

  if (!installed) {
    log(
      `codeloop: building the Temporal server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool into ${clusterToolsDir} (about 3 minutes the first time)`,
    );
    const staging = stagingDir('server');
    await goInstall(
      go,
      [`${SERVER_MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, `${SERVER_MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`],
      staging,
      log,
    );
    renameSync(path.join(staging, 'server'), toolPaths.server);
    renameSync(path.join(staging, 'sql'), toolPaths.sqlTool);
    versions.server = TEMPORAL_SERVER_VERSION;
    writeVersions(versions);
  }

  if (!installed?.ui && versions.uiFailed?.version !== TEMPORAL_UI_VERSION) {
    log(`codeloop: building the Temporal Web UI ${TEMPORAL_UI_VERSION} (about a minute; its module holds the built pages, 550 MB)`);
    try {
      const staging = stagingDir('ui');
      await goInstall(go, [`${UI_MODULE}/cmd/server@v${TEMPORAL_UI_VERSION}`], staging, log);
      renameSync(path.join(staging, 'server'), toolPaths.uiServer);
      copyUiConfigTemplate(go);
      versions.ui = TEMPORAL_UI_VERSION;
      delete versions.uiFailed;
    } catch (error) {
      const reason = (error as Error).message;
      log(`codeloop: the Web UI could not be built, the cluster runs without it (remove ${toolPaths.versions} to try again): ${reason}`);
      versions.uiFailed = { version: TEMPORAL_UI_VERSION, reason };
    }
    writeVersions(versions);
  }
  rmSync(path.join(clusterToolsDir, 'staging'), { recursive: true, force: true });
  return findClusterTools()!;
}

function stagingDir(name: string): string {
  const dir = path.join(clusterToolsDir, 'staging', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeVersions(versions: InstalledVersions): void {
  writeFileSync(toolPaths.versions, `${JSON.stringify(versions, null, 2)}\n`);
}

/**
 * The UI server's own configuration template (`config/docker.yaml`, the one its container image uses), copied from
 * the module cache, so the cluster's Web UI is configured the way docker-compose.yml's is: by environment variables.
 */
function copyUiConfigTemplate(go: string): void {
  const cache = spawnSync(go, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const source = path.join(cache, `${UI_MODULE}@v${TEMPORAL_UI_VERSION}`, 'config', 'docker.yaml');
  mkdirSync(toolPaths.uiConfigDir, { recursive: true });
  const target = path.join(toolPaths.uiConfigDir, 'docker.yaml');
  copyFileSync(source, target);
  // The module cache is read-only; the copy need not be.
  chmodSync(target, 0o644);
}

/** `go install` into `gobin`, with a progress line every 15 s: the build is silent for minutes otherwise. */
async function goInstall(go: string, packages: string[], gobin: string, log: (line: string) => void): Promise<void> {
  log(`$ GOBIN=${gobin} go install ${packages.join(' ')}`);
  const started = Date.now();
  const child = spawn(go, ['install', ...packages], { env: { ...process.env, GOBIN: gobin }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let downloads = 0;
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    downloads += text.split('\n').filter((line) => line.startsWith('go: downloading')).length;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const progress = setInterval(() => log(`  building… ${formatDuration(Date.now() - started)} (${downloads} modules downloaded)`), 15_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => clearInterval(progress));
  if (code !== 0) {
    const tail = output.trim().split('\n').slice(-20).join('\n');
    throw new Error(`go install ${packages.join(' ')} failed (exit ${code}):\n${tail}`);
  }
  log(`  built in ${formatDuration(Date.now() - started)}`);
}
