import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { findTemporalBinary } from '../../src/server/temporal-binary.js';
import { npxShimDir } from './test-output.js';

/** The documentation a user reads: the README, every page of docs/, and CONTRIBUTING.md. */
export const DOCUMENTATION: readonly string[] = [
  'README.md',
  ...readdirSync(path.resolve('docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`),
  'CONTRIBUTING.md',
];

const readme = DOCUMENTATION.map((file) => readFileSync(path.resolve(file), 'utf8')).join('\n');

/** The documentation's fenced blocks of one language, in order (the README's first). */
export function readmeBlocks(language: string): string[] {
  const fence = new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g');
  return [...readme.matchAll(fence)].map((match) => match[1]!);
}

/** The one shell block that contains `marker`; fails loudly when the README no longer has it. */
export function readmeShellBlock(marker: string): string {
  const found = readmeBlocks('sh').filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`README: expected one sh block containing ${JSON.stringify(marker)}, found ${found.length}`);
  return found[0]!;
}

/** The whole command (backslash continuations joined) that starts with `prefix`, from the README's shell blocks. */
export function readmeCommand(prefix: string): string {
  const lines = readmeBlocks('sh')
    .join('\n')
    .replace(/\\\n\s*/g, '')
    .split('\n');
  const found = lines.filter((line) => line.trimStart().startsWith(prefix));
  if (found.length !== 1) throw new Error(`README: expected one command starting ${JSON.stringify(prefix)}, found ${found.length}`);
  return found[0]!.trim();
}

/** Replaces each placeholder, failing when one is absent so a README edit can't silently skip a substitution. */
export function fillIn(text: string, replacements: [string | RegExp, string][]): string {
  return replacements.reduce((result, [from, to]) => {
    const replaced = result.replaceAll(from as string, to);
    if (replaced === result) throw new Error(`README text has no ${String(from)}:\n${text}`);
    return replaced;
  }, text);
}

/**
 * Runs README shell text with bash from the project root, as a reader would: `npx codeloop` resolves to this
 * checkout, `temporal` to the CLI codeloop installed, and both talk to the test server. `npx codeloop` runs the CLI
 * compiled for the run (see `writeNpxShim` in the global setup) unless `realNpx` is set.
 */
export function runShell(
  script: string,
  env: NodeJS.ProcessEnv = {},
  { realNpx = false }: { realNpx?: boolean } = {},
): Promise<{ stdout: string; stderr: string }> {
  const temporalDir = path.dirname(findTemporalBinary()!);
  const searchPath = [...(realNpx ? [] : [npxShimDir]), temporalDir, process.env.PATH].join(':');
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      {
        cwd: path.resolve('.'),
        timeout: 120_000,
        env: { ...process.env, PATH: searchPath, TEMPORAL_ADDRESS: inject('temporalAddress'), ...env },
      },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve({ stdout, stderr })),
    );
  });
}
