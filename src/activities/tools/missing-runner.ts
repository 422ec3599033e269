import { readdirSync } from 'node:fs';
import path from 'node:path';
import { asRecord, readPackageManifest } from '../tech-stack.js';

/** The shells' words for a program they cannot find: `sh: 1: nyc: not found`, `bash: line 1: nyc: command not found`. */
const NOT_FOUND = /(?:^|\n)[^\n]*?([\w.@/+-]+): (?:command )?not found/;

/** Runners and checkers worth naming when they sit in the project's own bin directories. */
const RUNNERS = /^(ava|c8|eslint|jasmine|jest|mocha|node|nyc|pytest|py\.test|tap|tape|ts-node|tsc|tsx|uvu|vitest|python3?)$/;

const SHOWN = 8;

/**
 * Why a test command exited 127, for the model: the program the shell could not find, that nothing installs it
 * here (the sandbox has no network by default), and what the project does have: its other scripts that do not
 * use that program, and the runners in `node_modules/.bin` and the virtualenv. `undefined` when the output does
 * not name a missing program.
 */
export function describeMissingRunner(workspace: string, output: string): string | undefined {
  const missing = NOT_FOUND.exec(output)?.[1];
  if (!missing) return undefined;
  const name = missing.slice(missing.lastIndexOf('/') + 1);
  const lines = [`\`${name}\` is not installed where the tests run (exit 127: command not found), and installing it needs the network.`];
  const manifest = readPackageManifest(workspace);
  const scripts = manifest.state === 'read' ? Object.entries(asRecord(manifest.manifest.scripts) ?? {}) : [];
  const others = scripts
    .filter(
      ([script, body]) => script !== 'test' && typeof body === 'string' && !new RegExp(`(^|[\\s/;&|(])${escape(name)}(\\s|$)`).test(body),
    )
    .slice(0, SHOWN)
    .map(([script, body]) => `${script}: \`${String(body)}\``);
  if (others.length) lines.push(`Scripts in package.json that do not use it: ${others.join('; ')}.`);
  const installed = ['node_modules/.bin', '.venv/bin', 'venv/bin'].flatMap((dir) => runnersIn(workspace, dir));
  if (installed.length) lines.push(`Installed in the project: ${installed.join(', ')}.`);
  lines.push('Run the tests another way with run_command, or set codeloop.json\'s "test" to a command that works here.');
  return lines.join('\n');
}

function runnersIn(workspace: string, dir: string): string[] {
  try {
    return readdirSync(path.join(workspace, dir))
      .filter((entry) => RUNNERS.test(entry))
      .slice(0, SHOWN)
      .map((entry) => `${dir}/${entry}`);
  } catch {
    return [];
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
