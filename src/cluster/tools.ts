import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isExecutable } from '../activities/process/find-executable.js';
import { projectRoot } from '../project-root.js';

/**
 * The Temporal server release the cluster runs, built with `go install go.temporal.io/server/cmd/server@v…` along with
 * its `temporal-sql-tool`. docker-compose.yml runs the images of the same release.
 */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** The Web UI release, built from `github.com/temporalio/ui-server/v2`; docker-compose.yml runs `temporalio/ui` of it. */
export const TEMPORAL_UI_VERSION = '2.49.1';

/** Where `npm run install-cluster` puts the binaries: `.tools/cluster/`, beside the Temporal CLI `npm start` uses. */
export const clusterToolsDir = path.join(projectRoot, '.tools', 'cluster');

/** The installed binaries and the Web UI's configuration template. */
export interface ClusterTools {
  server: string;
  sqlTool: string;
  /** Absent when the Web UI could not be built; `uiError` says why. */
  ui?: { server: string; configDir: string };
  uiError?: string;
}

/** What the installer records in `.tools/cluster/versions.json`, so a changed pin reinstalls. */
export interface InstalledVersions {
  server: string;
  ui?: string;
  /** The Web UI version whose build failed, and why: not retried on every install for the same pin. */
  uiFailed?: { version: string; reason: string };
}

export const toolPaths = {
  server: path.join(clusterToolsDir, 'bin', 'temporal-server'),
  sqlTool: path.join(clusterToolsDir, 'bin', 'temporal-sql-tool'),
  uiServer: path.join(clusterToolsDir, 'bin', 'temporal-ui-server'),
  uiConfigDir: path.join(clusterToolsDir, 'ui-config'),
  versions: path.join(clusterToolsDir, 'versions.json'),
};

export function readInstalledVersions(): InstalledVersions | undefined {
  if (!existsSync(toolPaths.versions)) return undefined;
  try {
    return JSON.parse(readFileSync(toolPaths.versions, 'utf8')) as InstalledVersions;
  } catch {
    return undefined;
  }
}

/** The pinned binaries if they are installed, else `undefined`; nothing is built here. */
export function findClusterTools(): ClusterTools | undefined {
  const installed = readInstalledVersions();
  if (installed?.server !== TEMPORAL_SERVER_VERSION || !isExecutable(toolPaths.server) || !isExecutable(toolPaths.sqlTool))
    return undefined;
  const uiInstalled = installed.ui === TEMPORAL_UI_VERSION && isExecutable(toolPaths.uiServer);
  return {
    server: toolPaths.server,
    sqlTool: toolPaths.sqlTool,
    ui: uiInstalled ? { server: toolPaths.uiServer, configDir: toolPaths.uiConfigDir } : undefined,
    uiError: uiInstalled
      ? undefined
      : installed.uiFailed?.version === TEMPORAL_UI_VERSION
        ? installed.uiFailed.reason
        : 'the Web UI is not installed',
  };
}

/** The installed binaries, or an error that names the command installing them. */
export function requireClusterTools(): ClusterTools {
  const tools = findClusterTools();
  if (!tools)
    throw new Error(
      `the Temporal server ${TEMPORAL_SERVER_VERSION} is not installed in ${clusterToolsDir}: run \`npm run install-cluster\` (builds it with Go, a few minutes the first time)`,
    );
  return tools;
}
