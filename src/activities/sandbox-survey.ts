import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { CommandAccess } from '../shared/command-access.js';
import type { FoundTool, SandboxSurvey } from '../shared/project-context.js';
import { asRecord, readManifest, readPackageManifest } from './tech-stack.js';
import { shellQuote, withAccess, type WorkspaceShell } from './tools/run-command.js';
import { pytestSetting } from './tools/pytest-config.js';
import { sourcePathPrefix, testPython } from './tools/python-suite.js';

/** Programs on `PATH` worth naming, with how each says its version, and the projects they matter to. */
const PROGRAMS: [name: string, versionArgs: string, kind: ProjectKind][] = [
  ['python3', '--version', 'python'],
  ['ruff', '--version', 'python'],
  ['uv', '--version', 'python'],
  ['node', '--version', 'node'],
  ['go', 'version', 'go'],
  ['cargo', '--version', 'rust'],
];

type ProjectKind = 'python' | 'node' | 'go' | 'rust';

/**
 * What the workspace is built with, as far as the survey cares: its manifests, or Python and Node both for a
 * workspace with none yet (a greenfield task picks its own).
 */
function projectKinds(workspace: string): Set<ProjectKind> {
  const has = (...names: string[]) => names.some((name) => existsSync(path.join(workspace, name)));
  const kinds = new Set<ProjectKind>();
  if (has('pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'pytest.ini', 'tox.ini')) kinds.add('python');
  if (has('package.json', 'tsconfig.json')) kinds.add('node');
  if (has('go.mod')) kinds.add('go');
  if (has('Cargo.toml')) kinds.add('rust');
  return kinds.size ? kinds : new Set<ProjectKind>(['python', 'node']);
}

/** Python distributions that run or check code: test runners, their plugins, linters, type checkers. */
const PYTHON_TOOLS = [
  'pytest',
  'pytest-cov',
  'pytest-xdist',
  'pytest-timeout',
  'coverage',
  'mypy',
  'ruff',
  'flake8',
  'pylint',
  'black',
  'isort',
  'tox',
  'nox',
];

/** Packages in node_modules worth naming, with the command each installs. */
const NODE_TOOLS: [pkg: string, bin: string][] = [
  ['typescript', 'tsc'],
  ['eslint', 'eslint'],
  ['prettier', 'prettier'],
  ['vitest', 'vitest'],
  ['jest', 'jest'],
  ['mocha', 'mocha'],
  ['tape', 'tape'],
  ['nyc', 'nyc'],
  ['c8', 'c8'],
  ['tsx', 'tsx'],
  ['ts-node', 'ts-node'],
];

const SURVEY_TIMEOUT_MS = 30_000;
const NOT_PACKAGES = new Set(['tests', 'test', 'testing', 'docs', 'doc', 'examples', 'scripts', 'build', 'dist']);

/**
 * Surveys, inside the sandbox and with the task's access, what its commands will find: the programs on `PATH` and
 * the Python distributions of the interpreter the tests use, with versions, in one sandboxed process; the tools in
 * `node_modules` (read from their manifests); what the project's configuration names that is missing; and what
 * `import <package>` finds for the project's own Python packages, as the tests import them (with `PYTHONPATH=src`
 * for a src/ layout). A program that does not answer is simply not listed.
 */
export async function surveySandbox(shell: WorkspaceShell, workspace: string, access?: CommandAccess): Promise<SandboxSurvey> {
  const kinds = projectKinds(workspace);
  const python = testPython(workspace);
  const packages = kinds.has('python') ? pythonPackages(workspace) : [];
  // As the tests import: with PYTHONPATH=src in a src layout, or the path pytest's own settings add.
  const configured = pytestSetting(workspace, 'pythonpath');
  const ours = sourcePathPrefix(workspace);
  const prefix = ours || (configured?.length ? `PYTHONPATH=${shellQuote(configured.join(':'))} ` : '');
  const how = ours
    ? ` (with ${ours.trim()}, as run_tests and the gates run them)`
    : configured?.length
      ? ` (on the path pytest's pythonpath setting adds: ${configured.join(', ')})`
      : '';
  const run = async (lines: string[]) => {
    if (lines.length === 0) return [];
    const result = await withAccess(shell, access)([...lines, 'true'].join('\n'), { workspace, timeoutMs: SURVEY_TIMEOUT_MS });
    return result.output.split('\n').map((line) => line.split('\t'));
  };
  const onPath = python === 'python3';
  const host = await hostSurvey(shell, [...kinds].sort().join(','), () =>
    run([
      // Listed only when it runs: a rustup shim without a toolchain prints an error, not a version.
      ...PROGRAMS.filter(([, , kind]) => kinds.has(kind)).map(
        ([name, args]) => `out=$(${name} ${args} 2>&1) && printf 'tool\\t${name}\\t%s\\n' "$(printf '%s' "$out" | head -n 1)"`,
      ),
      ...(kinds.has('python') ? [`python3 -c ${shellQuote(DISTRIBUTIONS)} 2>/dev/null`] : []),
    ]),
  );
  const own = await run([
    ...(kinds.has('python') && !onPath ? [`${python} -c ${shellQuote(DISTRIBUTIONS)} 2>/dev/null`] : []),
    ...packages.map(
      (name) => `printf 'import\\t${name}\\t%s\\n' "$(${prefix}${python} -c ${shellQuote(IMPORT)} ${name} 2>&1 | tail -n 1)"`,
    ),
  ]);
  // A virtualenv's Python distributions stand in for those of python3 on PATH.
  const lines = [...host.filter(([kind, name]) => onPath || kind !== 'tool' || !isPythonTool(name!)), ...own];
  const tools: FoundTool[] = lines
    .filter(([kind, , version]) => kind === 'tool' && version)
    .map(([, name, version]) => ({ name: name!, version: versionIn(version!) }));
  tools.push(...nodeTools(workspace));
  const imports = lines.filter(([kind]) => kind === 'import').map(([, name, found]) => describeImport(workspace, name!, found ?? '', how));
  return { tools, missing: missingTools(workspace, tools), imports };
}

const isPythonTool = (name: string) => PYTHON_TOOLS.includes(name);

/** How long what `PATH` holds is trusted: installs on a worker host are rare, and a task start should not wait. */
const HOST_SURVEY_MS = 10 * 60_000;
const hostSurveys = new WeakMap<WorkspaceShell, Map<string, { at: number; lines: Promise<string[][]> }>>();

/**
 * The programs on `PATH` and python3's distributions, surveyed once per worker and kind of project for ten minutes:
 * every task of a batch starts in a worktree of its own, and each would otherwise start a sandbox to learn the same.
 */
function hostSurvey(shell: WorkspaceShell, key: string, survey: () => Promise<string[][]>): Promise<string[][]> {
  const known = hostSurveys.get(shell) ?? new Map<string, { at: number; lines: Promise<string[][]> }>();
  hostSurveys.set(shell, known);
  const cached = known.get(key);
  if (cached && Date.now() - cached.at < HOST_SURVEY_MS) return cached.lines;
  const lines = survey();
  known.set(key, { at: Date.now(), lines });
  lines.catch(() => known.delete(key));
  return lines;
}

/** Prints `tool<TAB>name<TAB>version` for each Python tool installed for this interpreter. */
const DISTRIBUTIONS = [
  'import importlib.metadata as m',
  `for name in ${JSON.stringify(PYTHON_TOOLS)}:`,
  '    try: print("tool\\t" + name + "\\t" + m.version(name))',
  '    except Exception: pass',
].join('\n');

/** Prints where a package is imported from: its `__init__.py`, or its first namespace directory. */
const IMPORT =
  'import importlib, sys; m = importlib.import_module(sys.argv[1]); print(getattr(m, "__file__", None) or list(getattr(m, "__path__", []))[0])';

/** `Python 3.11.7` → `3.11.7`; `go version go1.22.1 linux/amd64` → `1.22.1`; otherwise the line as it is. */
function versionIn(line: string): string {
  return (/\bgo(\d+\.[\d.]+)/.exec(line) ?? /(?:^|[\s(])v?(\d+\.\d+[\w.+-]*)/.exec(line))?.[1] ?? line.trim();
}

function nodeTools(workspace: string): FoundTool[] {
  // A package is installed when its manifest is there, whether or not npm linked its command into .bin.
  return NODE_TOOLS.flatMap(([pkg, bin]) => {
    const manifest = readManifest(path.join(workspace, 'node_modules', pkg, 'package.json'));
    if (manifest === undefined) return [];
    const version = typeof manifest === 'string' ? asRecord(safeParse(manifest))?.version : undefined;
    return [{ name: bin === pkg ? bin : `${bin} (${pkg})`, version: typeof version === 'string' ? version : 'installed' }];
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Tools the project's manifests name (dependencies, configuration sections) that were not found. */
function missingTools(workspace: string, found: FoundTool[]): string[] {
  const have = (name: string) =>
    found.some((tool) => tool.name === name || tool.name.startsWith(`${name} `) || tool.name.endsWith(`(${name})`));
  const python = ['pyproject.toml', 'setup.cfg', 'requirements-dev.txt', 'requirements.txt', 'tox.ini']
    .map((name) => readManifest(path.join(workspace, name)))
    .map((text) => (typeof text === 'string' ? text.toLowerCase() : ''))
    .join('\n');
  const named = ['pytest', 'ruff', 'mypy', 'flake8', 'pylint', 'black', 'isort', 'pytest-cov'].filter((tool) =>
    new RegExp(`(^|[^\\w-])${tool}([^\\w-]|$)`).test(python),
  );
  const manifest = readPackageManifest(workspace);
  const dependencies =
    manifest.state === 'read' ? { ...asRecord(manifest.manifest.dependencies), ...asRecord(manifest.manifest.devDependencies) } : {};
  const node = NODE_TOOLS.map(([pkg]) => pkg).filter((pkg) => Object.hasOwn(dependencies, pkg));
  return [...new Set([...named, ...node])].filter((tool) => !have(tool));
}

/** The project's own top-level Python packages: under src/ in a src layout, else at the top level (not tests or docs). */
function pythonPackages(workspace: string): string[] {
  const packagesIn = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries
      .filter((entry) => entry.isDirectory() && /^[A-Za-z_]\w*$/.test(entry.name) && !NOT_PACKAGES.has(entry.name))
      .filter((entry) => existsSync(path.join(dir, entry.name, '__init__.py')))
      .map((entry) => entry.name)
      .sort();
  };
  const src = packagesIn(path.join(workspace, 'src'));
  return (src.length ? src : packagesIn(workspace)).slice(0, 3);
}

/** Where `import <name>` led, in words: this workspace, a copy installed elsewhere, or nowhere. */
/** `how`: how the import was made, as the tests make it (` (with PYTHONPATH=src, …)`), or empty. */
export function describeImport(workspace: string, name: string, found: string, how: string): string {
  if (found.startsWith(`${workspace}/`))
    return `the tests import \`${name}\` from ${path.relative(workspace, path.dirname(found))}/, in this workspace${how}`;
  if (found.startsWith('/'))
    return `\`import ${name}\` finds ${found}, a copy installed outside this workspace${how}: tests would not exercise your changes; run them so they import the workspace's copy`;
  return `\`import ${name}\` fails where the tests run${how}: ${found || 'no output'}`;
}
