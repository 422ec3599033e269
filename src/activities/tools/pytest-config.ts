import path from 'node:path';
import { readManifest } from '../tech-stack.js';

/** Where pytest reads its settings, in the order it looks, with each file's section. */
const PYTEST_CONFIGS = [
  ['pytest.ini', 'pytest'],
  ['pyproject.toml', 'tool.pytest.ini_options'],
  ['tox.ini', 'pytest'],
  ['setup.cfg', 'tool:pytest'],
] as const;

/**
 * A pytest setting (`testpaths`, `addopts`, `pythonpath`) as words, from the first configuration file that has a
 * pytest section, as pytest itself picks one; `undefined` when that file does not set it. A TOML list
 * (`addopts = ["-ra", "--cov"]`) and an INI value alike become the list of their words.
 */
export function pytestSetting(workspace: string, name: string): string[] | undefined {
  for (const [file, section] of PYTEST_CONFIGS) {
    const text = readManifest(path.join(workspace, file));
    const body = typeof text === 'string' ? sectionBody(text, section) : undefined;
    if (body === undefined) continue;
    const value = readValue(body, name);
    if (value === undefined) return undefined;
    return value.startsWith('[') ? [...value.matchAll(/["']([^"']*)["']/g)].map((match) => match[1]!) : splitWords(value);
  }
  return undefined;
}

/** The raw value of `name`: a TOML list up to its `]`, or an INI value with its indented continuation lines. */
function readValue(body: string, name: string): string | undefined {
  const lines = body.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s*${name}\\s*=`).test(line));
  if (at === -1) return undefined;
  const first = lines[at]!.slice(lines[at]!.indexOf('=') + 1).trim();
  const rest = lines.slice(at + 1);
  if (first.startsWith('[')) return [first, ...rest].join('\n').replace(/\][^]*$/, ']');
  const end = rest.findIndex((line) => !/^\s+\S/.test(line) || /^\s*[\w.-]+\s*=/.test(line));
  return [first, ...(end === -1 ? rest : rest.slice(0, end))].join(' ').trim();
}

/** An INI value's words, honouring quotes as pytest's `shlex` split does for `addopts`. */
function splitWords(value: string): string[] {
  return [...value.replace(/^["']|["']$/g, '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The lines of an INI or TOML `[section]`, up to the next section. */
function sectionBody(text: string, section: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trim() === `[${section}]`);
  if (start === -1) return undefined;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^\s*\[/.test(line));
  return (end === -1 ? rest : rest.slice(0, end)).join('\n');
}
