import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from '../activities/process/find-executable.js';
import { isRunning } from './process.js';

const run = promisify(execFile);

/** How PostgreSQL stops: `smart` waits for clients, `fast` disconnects them, `immediate` aborts (recovery on start). */
export type PostgresShutdownMode = 'smart' | 'fast' | 'immediate';

export interface PostgresOptions {
  /** Owns the cluster: `data/` (PGDATA) and `postgres.log` live in it. Created if absent; kept across starts. */
  dir: string;
  port: number;
  /** The superuser `initdb` creates. */
  user: string;
  /** With a password, connections authenticate with SCRAM; without, loopback connections are trusted (tests). */
  password?: string;
  /** `false` turns fsync off and skips initdb's syncs: faster, for throwaway clusters only. Default `true`. */
  durable?: boolean;
}

/** A PostgreSQL cluster of codeloop's own, on 127.0.0.1 only, controlled with `pg_ctl`. */
export interface PrivatePostgres {
  readonly url: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
  readonly dataDir: string;
  readonly logFile: string;
  start(): Promise<void>;
  stop(options?: { mode?: PostgresShutdownMode }): Promise<void>;
  /** Stops and starts again with the same settings; clients see their connections drop. */
  restart(options?: { mode?: PostgresShutdownMode }): Promise<void>;
  /** The postmaster's pid while it runs, else `undefined`. */
  pid(): number | undefined;
}

/**
 * Debian's `initdb` and `pg_ctl`: on `PATH`, else in `/usr/lib/postgresql/<version>/bin` (where the `postgresql`
 * package installs them, off `PATH`), the newest version first. `undefined` when PostgreSQL is not installed.
 */
export function findPostgresBinaries(): { initdb: string; pgCtl: string } | undefined {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const find = (name: string) =>
    findExecutable(name) ??
    findExecutable(
      name,
      versions.map((version) => path.join(debian, version, 'bin', name)),
      '',
    );
  const initdb = find('initdb');
  const pgCtl = find('pg_ctl');
  return initdb && pgCtl ? { initdb, pgCtl } : undefined;
}

export const POSTGRES_MISSING = 'PostgreSQL (initdb, pg_ctl) is not installed: apt-get install postgresql';

/**
 * A handle on a private PostgreSQL cluster in `options.dir`, started or not: `start()` prepares it with `initdb` the
 * first time. PostgreSQL refuses to run as root, so when codeloop runs as root it runs as the `postgres` system user,
 * which then owns the directory.
 */
export function openPostgres(options: PostgresOptions): PrivatePostgres {
  const binaries = findPostgresBinaries();
  if (!binaries) throw new Error(POSTGRES_MISSING);
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  const dataDir = path.join(options.dir, 'data');
  const logFile = path.join(options.dir, 'postgres.log');
  const asOwner = (command: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
  const pgCtl = (...args: string[]) => asOwner(binaries.pgCtl, ['-D', dataDir, ...args]);

  // No Unix socket: the cluster is reached on 127.0.0.1 only, and a long data path would overflow the socket's name.
  const settings = [`-p ${options.port}`, '-c listen_addresses=127.0.0.1', "-c unix_socket_directories=''"];
  if (options.durable === false) settings.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');
  const stop = ({ mode = 'fast' }: { mode?: PostgresShutdownMode } = {}) =>
    pgCtl('-m', mode, '-w', '-t', '60', 'stop').then(() => undefined);
  const postgres: PrivatePostgres = {
    url: `postgres://${options.user}${options.password ? `:${encodeURIComponent(options.password)}` : ''}@127.0.0.1:${options.port}/postgres`,
    port: options.port,
    user: options.user,
    password: options.password,
    dataDir,
    logFile,
    async start() {
      await prepareDirectory(options.dir, owner, asOwner);
      if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await initialize(options, dataDir, owner, asOwner, binaries.initdb);
      await pgCtl('-o', settings.join(' '), '-l', logFile, '-w', '-t', '60', 'start').catch((error: Error) => {
        throw explainStart(error, logFile);
      });
    },
    stop,
    async restart(restartOptions) {
      await stop(restartOptions);
      await postgres.start();
    },
    pid: () => postmasterPid(dataDir),
  };
  return postgres;
}

/** Opens and starts a private PostgreSQL cluster (see `openPostgres`). */
export async function startPostgres(options: PostgresOptions): Promise<PrivatePostgres> {
  const postgres = openPostgres(options);
  await postgres.start();
  return postgres;
}

async function prepareDirectory(
  dir: string,
  owner: { uid: number; gid: number } | undefined,
  asOwner: (command: string, args: string[]) => Promise<unknown>,
): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!owner) return;
  chownSync(dir, owner.uid, owner.gid);
  await asOwner('test', ['-w', dir]).catch(() => {
    throw new Error(
      `the postgres user cannot reach ${dir} (a directory above it is private to root): choose a data directory elsewhere, e.g. /var/lib/codeloop`,
    );
  });
}

async function initialize(
  options: PostgresOptions,
  dataDir: string,
  owner: { uid: number; gid: number } | undefined,
  asOwner: (command: string, args: string[]) => Promise<unknown>,
  initdb: string,
): Promise<void> {
  rmSync(dataDir, { recursive: true, force: true });
  const args = ['-D', dataDir, '-U', options.user, '--encoding=UTF8', '--locale=C'];
  if (options.durable === false) args.push('--no-sync');
  const passwordFile = path.join(options.dir, '.initdb-password');
  if (options.password) {
    writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    args.push('--auth=scram-sha-256', `--pwfile=${passwordFile}`);
  } else {
    args.push('--auth=trust');
  }
  try {
    await asOwner(initdb, args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`initdb failed for ${dataDir}: ${stderr.trim() || (error as Error).message}`, { cause: error });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('PostgreSQL refuses to run as root and there is no `postgres` user: apt-get install postgresql creates it');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The pid `postmaster.pid` names, if that process is alive and is this cluster's postmaster (a crash leaves the file). */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return isRunning(pid, [dataDir]) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function explainStart(error: Error, logFile: string): Error {
  let log = '';
  try {
    log = readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
  } catch {
    // No log yet: pg_ctl failed before the server wrote one; its own message is all there is.
  }
  const stderr = ((error as { stderr?: string }).stderr ?? '').trim();
  return new Error(`PostgreSQL did not start (${stderr || error.message})${log ? `; the end of ${logFile}:\n${log}` : ''}`);
}
