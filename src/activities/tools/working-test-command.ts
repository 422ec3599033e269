import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../../shared/command-access.js';
import { readProjectFile } from '../project-file.js';
import { asRecord, readPackageManifest } from '../tech-stack.js';
import { testPython, usesUnittest } from './python-suite.js';

/**
 * A test command more likely to work here than the one that could not run, for the fix codeloop offers (the value of
 * codeloop.json's `"test"`): the makefile's `test` target or `python -m unittest` for a unittest suite run without
 * pytest; for an npm script whose first program is missing (`nyc tape test/*.js` without nyc), the rest of it from
 * the first program the project does have. `undefined` when nothing better is known.
 */
export function workingTestCommand(workspace: string, missing: string | undefined, sandboxMode?: SandboxMode): string | undefined {
  if (usesUnittest(workspace) && (missing === undefined || /^(py\.?test|python3?)$/.test(missing))) {
    return makeTarget(workspace, 'test') ? 'make test' : unittestCommand(workspace, sandboxMode);
  }
  const manifest = readPackageManifest(workspace);
  const script = manifest.state === 'read' ? asRecord(manifest.manifest.scripts)?.test : undefined;
  if (typeof script !== 'string' || missing === undefined) return undefined;
  const words = script.trim().split(/\s+/);
  const at = words.findIndex((word, index) => index > 0 && words[index - 1] !== missing && installedBin(workspace, word));
  if (!words.includes(missing) || at === -1) return undefined;
  return `npx --no-install ${words.slice(at).join(' ')}`;
}

/** `python -m unittest` from the top when tests/ is a package, otherwise discovering in tests/ (or test/). */
export function unittestCommand(workspace: string, sandboxMode?: SandboxMode): string {
  const python = testPython(workspace, sandboxMode);
  const dir = ['tests', 'test'].find((name) => existsSync(path.join(workspace, name)));
  if (!dir || existsSync(path.join(workspace, dir, '__init__.py'))) return `${python} -m unittest`;
  return `${python} -m unittest discover -s ${dir}`;
}

/** Whether a makefile at the top defines `target` (`test:` at the start of a line). */
export function makeTarget(workspace: string, target: string): boolean {
  return ['Makefile', 'makefile', 'GNUmakefile'].some((name) => {
    const text = readProjectFile(path.join(workspace, name));
    return typeof text === 'string' && new RegExp(`^${target}\\s*:(?!=)`, 'm').test(text);
  });
}

function installedBin(workspace: string, word: string): boolean {
  if (!/^[\w.@-]+$/.test(word)) return false;
  try {
    return readdirSync(path.join(workspace, 'node_modules/.bin')).includes(word);
  } catch {
    return false;
  }
}
