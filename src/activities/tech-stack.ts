import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

const NODE_MARKERS: [dependency: string, label: string][] = [
  ['typescript', 'TypeScript'], ['react', 'React'], ['vue', 'Vue'], ['next', 'Next.js'], ['express', 'Express'],
  ['fastify', 'Fastify'], ['commander', 'commander (CLI)'], ['vitest', 'vitest'], ['jest', 'jest'], ['mocha', 'mocha'],
  ['eslint', 'eslint'], ['prettier', 'prettier'],
];

const PYTHON_MARKERS: [needle: string, label: string][] = [
  ['pytest', 'pytest'], ['ruff', 'ruff'], ['click', 'click (CLI)'], ['typer', 'typer (CLI)'], ['django', 'Django'],
  ['flask', 'Flask'], ['fastapi', 'FastAPI'], ['poetry', 'poetry'], ['hatchling', 'hatch'], ['mypy', 'mypy'],
];

const OTHER_MARKERS: [file: string, label: string][] = [
  ['go.mod', 'Go'], ['Cargo.toml', 'Rust'], ['pom.xml', 'Java (Maven)'], ['build.gradle', 'Java/Kotlin (Gradle)'],
  ['Gemfile', 'Ruby'], ['composer.json', 'PHP'], ['Makefile', 'make'], ['Dockerfile', 'Docker'],
];

/** A short list of what the workspace is built with, read from its manifest files. */
export function detectTechStack(workspace: string): string[] {
  const stack: string[] = [];
  const read = (name: string) => {
    const file = path.join(workspace, name);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
  const packageJson = read('package.json');
  if (packageJson !== undefined) {
    stack.push('Node.js');
    let manifest: PackageJson = {};
    try {
      manifest = JSON.parse(packageJson) as PackageJson;
    } catch {
      stack.push('(package.json does not parse)');
    }
    const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
    for (const [dependency, label] of NODE_MARKERS) if (dependency in dependencies) stack.push(label);
    if (!stack.includes('TypeScript') && existsSync(path.join(workspace, 'tsconfig.json'))) stack.push('TypeScript');
  }
  const pythonManifests = ['pyproject.toml', 'requirements.txt', 'setup.py', 'setup.cfg'].map(read).filter((text) => text !== undefined);
  if (pythonManifests.length > 0) {
    stack.push('Python');
    const text = pythonManifests.join('\n').toLowerCase();
    for (const [needle, label] of PYTHON_MARKERS) if (text.includes(needle)) stack.push(label);
  }
  for (const [file, label] of OTHER_MARKERS) if (existsSync(path.join(workspace, file))) stack.push(label);
  return stack;
}
