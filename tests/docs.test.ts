import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { expect, test } from 'vitest';
import { buildProgram } from '../src/client/main.js';
import { DOCUMENTATION, readmeBlocks } from './support/readme.js';

/**
 * The README is a front door and docs/ holds the rest: the README stays short, every link between the pages lands on
 * a file and a heading that exist, and every `codeloop` command the pages show names a real command with real
 * options. The commands themselves are run as written by the README walkthrough tests, which read every page.
 */

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The page's text outside fenced blocks. */
const prose = (text: string) => text.replace(/```[\s\S]*?```/g, '');

const anchorsOf = (file: string) =>
  new Set([...prose(readFileSync(file, 'utf8')).matchAll(/^#{1,4} (.+)$/gm)].map((match) => anchorOf(match[1])));

test('the README is a front door: under 250 lines, and it leads to every page of docs/ and to CONTRIBUTING.md', () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(readme.split('\n').length).toBeLessThan(250);
  for (const page of DOCUMENTATION.filter((file) => file !== 'README.md')) expect(readme).toContain(`](${page})`);
});

test('every link between the pages lands on a file and a heading that exist', () => {
  const broken: string[] = [];
  for (const page of DOCUMENTATION) {
    for (const [, target] of prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const resolved = file ? path.join(path.dirname(page), file) : page;
      if (!existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

/** The command a `codeloop …` line names, and the options it passes, checked against the CLI's own definition. */
function unknownParts(line: string, program: Command): string[] {
  const words = line
    .replace(/\s+#.*$/, '')
    .split(/\s+/)
    .slice(line.trim().startsWith('npx') ? 2 : 1);
  let command = program;
  const problems: string[] = [];
  for (const word of words) {
    if (word.startsWith('-')) {
      const flag = word.split('=')[0];
      if (!command.options.some((option) => option.long === flag || option.short === flag) && flag !== '--help' && flag !== '-h')
        problems.push(`${line}: ${command.name()} has no ${flag}`);
      continue;
    }
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    if (sub) command = sub;
    else if (command === program) problems.push(`${line}: no command ${word}`);
  }
  return problems;
}

test('every codeloop command the pages show is a real command, with options it has', () => {
  const program = buildProgram();
  const lines = readmeBlocks('sh')
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(npx )?codeloop /.test(line));
  expect(lines.length).toBeGreaterThan(20);
  expect(lines.flatMap((line) => unknownParts(line, program))).toEqual([]);
});
