import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ProcessResult } from '../process/run-process.js';
import { asRecord, readPackageManifest } from '../tech-stack.js';

/** The shells' words for a program they cannot find: `sh: 1: nyc: not found`, `bash: line 1: nyc: command not found`. */
const NOT_FOUND = /(?:^|\n)[^\n]*?([\w.@/+-]+): (?:command )?not found/;

/** Runners and checkers worth naming when they sit in the project's own bin directories. */
const RUNNERS = /^(ava|c8|eslint|jasmine|jest|mocha|node|nyc|pytest|py\.test|tap|tape|ts-node|tsc|tsx|uvu|vitest|python3?)$/;

const SHOWN = 8;

/** A program a test run needed and did not find, and how the run said so. */
export interface MissingRunner {
  name: string;
  how: string;
}

/**
 * The program a failed test run could not find: the command's own (see `couldNotStart`), or one the shell reported
 * missing with exit 127 (`sh: 1: nyc: not found` from an npm script); `undefined` for a run that failed otherwise.
 */
export function missingRunner(command: string, result: ProcessResult): MissingRunner | undefined {
  const own = couldNotStart(command, result);
  if (own) return { name: own, how: 'the command could not start' };
  const said = result.exitCode === 127 ? NOT_FOUND.exec(result.output)?.[1] : undefined;
  return said ? { name: said.slice(said.lastIndexOf('/') + 1), how: 'exit 127: command not found' } : undefined;
}

/**
 * Why a test run could not run, for the model: the program it did not find, that nothing installs it here (the
 * sandbox has no network by default), and what the project does have: its other scripts that do not use that
 * program, and the runners in `node_modules/.bin` and the virtualenv.
 */
export function describeMissingRunner(workspace: string, { name, how }: MissingRunner): string {
  const lines = [`\`${name}\` is not installed where the tests run (${how}), and installing it needs the network.`];
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

/**
 * The gate's own program, when it could not start: the command's first word (after `VAR=value` settings) reported
 * missing by the shell with exit 127 before anything else was printed, or `python -m <module>` whose module is not
 * installed (Python's one line, exit 1). Never a pattern found further into a runner's output: a test that fails
 * because a program it calls is missing is a failing test.
 */
export function couldNotStart(command: string, result: ProcessResult): string | undefined {
  const words = command.trim().split(/\s+/);
  const first = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const program = words[first];
  if (!program) return undefined;
  const opening = result.output.trim().split('\n')[0] ?? '';
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (result.exitCode === 127 && new RegExp(`(^|[: ])${escape(program)}: (command )?not found$`).test(opening)) return name;
  const module = words[first + 1] === '-m' ? words[first + 2] : undefined;
  const onlyLine = result.output.trim().split('\n').length === 1;
  if (module && /^python/.test(name) && onlyLine && opening.endsWith(`: No module named ${module}`)) return module;
  return undefined;
}
