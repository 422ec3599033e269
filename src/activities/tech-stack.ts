import { existsSync } from 'node:fs';
import path from 'node:path';
import { readProjectFile } from './project-file.js';

/** What codeloop reads from a package.json; any field may hold anything, since the agent can write the file. */
export interface PackageJson {
  dependencies?: unknown;
  devDependencies?: unknown;
  scripts?: unknown;
}

/** A workspace's package.json: absent, read, or present but unreadable, with why in words a person can act on. */
export type PackageManifest = { state: 'absent' } | { state: 'read'; manifest: PackageJson } | { state: 'unreadable'; problem: string };

/** Far above any real manifest; a bigger one is not read into the worker's memory. */
const MANIFEST_MAX_BYTES = 1024 * 1024;

const NODE_MARKERS: [dependency: string, label: string][] = [
  ['typescript', 'TypeScript'],
  ['react', 'React'],
  ['vue', 'Vue'],
  ['next', 'Next.js'],
  ['express', 'Express'],
  ['fastify', 'Fastify'],
  ['commander', 'commander (CLI)'],
  ['vitest', 'vitest'],
  ['jest', 'jest'],
  ['mocha', 'mocha'],
  ['eslint', 'eslint'],
  ['prettier', 'prettier'],
];

const PYTHON_MARKERS: [needle: string, label: string][] = [
  ['pytest', 'pytest'],
  ['ruff', 'ruff'],
  ['click', 'click (CLI)'],
  ['typer', 'typer (CLI)'],
  ['django', 'Django'],
  ['flask', 'Flask'],
  ['fastapi', 'FastAPI'],
  ['poetry', 'poetry'],
  ['hatchling', 'hatch'],
  ['mypy', 'mypy'],
];

const OTHER_MARKERS: [file: string, label: string][] = [
  ['go.mod', 'Go'],
  ['Cargo.toml', 'Rust'],
  ['pom.xml', 'Java (Maven)'],
  ['build.gradle', 'Java/Kotlin (Gradle)'],
  ['Gemfile', 'Ruby'],
  ['composer.json', 'PHP'],
  ['Makefile', 'make'],
  ['Dockerfile', 'Docker'],
];

/**
 * A short list of what the workspace is built with, read from its manifest files. A package.json that cannot be read
 * still marks a Node.js project, and the list says why it was not read, so the model knows to fix it.
 */
export function detectTechStack(workspace: string): string[] {
  const stack: string[] = [];
  const packageJson = readPackageManifest(workspace);
  if (packageJson.state !== 'absent') {
    stack.push('Node.js');
    if (packageJson.state === 'unreadable') stack.push(`(package.json cannot be read: ${packageJson.problem})`);
    const manifest = packageJson.state === 'read' ? packageJson.manifest : {};
    const dependencies = { ...asRecord(manifest.dependencies), ...asRecord(manifest.devDependencies) };
    for (const [dependency, label] of NODE_MARKERS) if (Object.hasOwn(dependencies, dependency)) stack.push(label);
    if (!stack.includes('TypeScript') && existsSync(path.join(workspace, 'tsconfig.json'))) stack.push('TypeScript');
  }
  const pythonManifests = ['pyproject.toml', 'requirements.txt', 'setup.py', 'setup.cfg']
    .map((name) => readManifest(path.join(workspace, name)))
    .filter((read) => read !== undefined)
    .map((read) => (typeof read === 'string' ? read : ''));
  if (pythonManifests.length > 0) {
    stack.push('Python');
    const text = pythonManifests.join('\n').toLowerCase();
    for (const [needle, label] of PYTHON_MARKERS) if (text.includes(needle)) stack.push(label);
  }
  for (const [file, label] of OTHER_MARKERS) if (existsSync(path.join(workspace, file))) stack.push(label);
  return stack;
}

/**
 * Reads the workspace's package.json for the worker, outside the sandbox, so only what the agent cannot turn against
 * the worker is read: a regular file (a FIFO would block the read for ever), not a symlink (it could lead to the
 * worker's own secrets, which a parse error would quote), at most 1 MB, holding a JSON object.
 */
export function readPackageManifest(workspace: string): PackageManifest {
  const text = readManifest(path.join(workspace, 'package.json'));
  if (text === undefined) return { state: 'absent' };
  if (typeof text !== 'string') return { state: 'unreadable', problem: text.problem };
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    return { state: 'unreadable', problem: `it is not valid JSON (${(error as Error).message})` };
  }
  if (asRecord(manifest) === undefined) return { state: 'unreadable', problem: 'it does not hold a JSON object' };
  return { state: 'read', manifest: manifest as PackageJson };
}

/** A plain object, or `undefined` for anything else (`null`, arrays, strings), so a hostile field cannot crash a reader. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A manifest's or config file's text, read as `readProjectFile` reads (a small regular file, no symlink). */
export const readManifest = (file: string) => readProjectFile(file, MANIFEST_MAX_BYTES);
