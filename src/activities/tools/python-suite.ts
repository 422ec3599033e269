import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { readProjectFile } from '../project-file.js';
import { IGNORED_DIRECTORIES } from './ignored-paths.js';

const TEST_FILE = /^test_?.*\.py$|_test\.py$/;
const SAMPLED = 20;

/**
 * Whether a Python project's tests are a unittest suite: its test files (at the top, in tests/, test/ or a package's
 * tests under src/, a few levels deep) subclass `unittest.TestCase` and none imports pytest. Such a suite runs under
 * `python -m unittest` with nothing installed, where pytest may be missing.
 */
export function usesUnittest(workspace: string): boolean {
  const texts = testFiles(workspace, 3)
    .slice(0, SAMPLED)
    .map((file) => readProjectFile(file))
    .filter((text): text is string => typeof text === 'string');
  if (texts.length === 0 || texts.some((text) => /^\s*(import pytest|from pytest import)\b/m.test(text))) return false;
  return texts.some((text) => /\bunittest\b[\s\S]*\bTestCase\b|\bTestCase\b[\s\S]*\bunittest\b/.test(text));
}

function testFiles(dir: string, depth: number): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const here = entries.filter((entry) => entry.isFile() && TEST_FILE.test(entry.name)).map((entry) => path.join(dir, entry.name));
  if (depth === 0) return here;
  const below = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !IGNORED_DIRECTORIES.includes(entry.name))
    .flatMap((entry) => testFiles(path.join(dir, entry.name), depth - 1));
  return [...here, ...below];
}
