import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/project-root.js';
import { freePort } from './free-port.js';
import { waitFor } from './npm-registry.js';

const TOOLS = path.join(projectRoot, '.tools');
const SERVER_VENV = path.join(TOOLS, 'pypiserver-venv');
/** What a `pip install -e .` with build isolation fetches for a setuptools project; from PyPI once, then kept. */
const BUILD_PACKAGES = path.join(TOOLS, 'pypi-build-packages');
const BUILD_REQUIREMENTS = ['setuptools==70.3.0', 'wheel==0.43.0'];

/** A real Python package index (pypiserver) on a loopback address of the worker's, serving what a test puts there. */
export interface PythonIndex {
  /** `http://127.0.0.2:<port>/simple/`, for `--index-url`. */
  url: string;
  /** `127.0.0.2:<port>`, as a network list names it. */
  host: string;
  /** Adds a pure-Python wheel `name-version` whose module `name` holds `source`. */
  addWheel(name: string, version: string, source: string): void;
  stop(): Promise<void>;
}

/** pypiserver and the build requirements, installed into `.tools/` the first time (from PyPI; CI has it). */
function ensureInstalled(): void {
  if (!existsSync(path.join(SERVER_VENV, 'bin', 'pypi-server'))) {
    execFileSync('python3', ['-m', 'venv', SERVER_VENV]);
    execFileSync(path.join(SERVER_VENV, 'bin', 'pip'), ['install', '-q', 'pypiserver==2.4.2'], { stdio: 'pipe' });
  }
  if (!existsSync(BUILD_PACKAGES) || readdirSync(BUILD_PACKAGES).length < BUILD_REQUIREMENTS.length) {
    mkdirSync(BUILD_PACKAGES, { recursive: true });
    execFileSync(path.join(SERVER_VENV, 'bin', 'pip'), ['download', '-q', '--no-deps', '-d', BUILD_PACKAGES, ...BUILD_REQUIREMENTS], {
      stdio: 'pipe',
    });
  }
}

export async function startPythonIndex(): Promise<PythonIndex> {
  ensureInstalled();
  const packages = mkdtempSync(path.join(os.tmpdir(), 'codeloop-pypi-'));
  for (const file of readdirSync(BUILD_PACKAGES)) copyFileSync(path.join(BUILD_PACKAGES, file), path.join(packages, file));
  const port = await freePort();
  const server: ChildProcess = spawn(
    path.join(SERVER_VENV, 'bin', 'pypi-server'),
    ['run', '-i', '127.0.0.2', '-p', String(port), '-a', '.', '-P', '.', '--disable-fallback', '--backend', 'simple-dir', packages],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.2:${port}/simple/`;
  await waitFor(async () => (await fetch(url)).ok, 30_000, 'pypiserver did not start');
  return {
    url,
    host: `127.0.0.2:${port}`,
    addWheel(name, version, source) {
      const script = `
import sys, zipfile, hashlib, base64
name, version, source, out = sys.argv[1:5]
info = f"{name}-{version}.dist-info"
files = {f"{name}.py": source, f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n",
         f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: codeloop-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b'=').decode()},{len(c.encode())}" for p, c in files.items()]
files[f"{info}/RECORD"] = "\\n".join(record + [f"{info}/RECORD,,"]) + "\\n"
with zipfile.ZipFile(f"{out}/{name}-{version}-py3-none-any.whl", "w") as wheel:
    for p, c in files.items(): wheel.writestr(p, c)
`;
      execFileSync('python3', ['-c', script, name, version, source, packages]);
    },
    async stop() {
      server.kill('SIGKILL');
      await new Promise((resolve) => server.once('exit', resolve));
    },
  };
}
