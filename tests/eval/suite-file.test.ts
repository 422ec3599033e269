import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CHECK_KINDS } from '../../src/eval/checks.js';
import { loadSuite, SuiteError } from '../../src/eval/load-suite.js';
import { readRecordings } from '../../src/eval/recording.js';
import { matchRecordings } from '../../src/eval/replay-worker.js';
import { BUILTIN_RECORDINGS, builtinSuite, scratchDir } from '../support/eval.js';

const dir = scratchDir('eval-suite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a suite file beside a fixture directory and loads it; the error's message, when it fails. */
function load(yaml: string): string {
  const file = path.join(dir, 'suite.yaml');
  writeFileSync(file, yaml);
  try {
    loadSuite(file);
    return 'loaded';
  } catch (error) {
    expect(error).toBeInstanceOf(SuiteError);
    return (error as Error).message.replaceAll(file, 'suite.yaml');
  }
}

test('the built-in suite: ten cases or more across Python and TypeScript, of every kind the seed design targets', () => {
  const suite = builtinSuite();
  expect(suite.cases.length).toBeGreaterThanOrEqual(10);
  const tags = new Set(suite.cases.flatMap((suiteCase) => suiteCase.tags));
  for (const tag of ['python', 'typescript', 'greenfield', 'bugfix', 'feature', 'refactor', 'blocker', 'config'])
    expect(tags).toContain(tag);
  const greenfield = suite.cases.find((suiteCase) => suiteCase.tags.includes('greenfield'))!;
  // The seed's cf-test: from a PRD, 0 lint errors, config files byte-identical, at most 30 iterations.
  expect(greenfield.task.prd).toContain('python3 -m tracker');
  expect(greenfield.checks).toMatchObject({ unchanged: ['pyproject.toml', '.gitignore'], maxIterations: 30 });
  expect(greenfield.checks.commands.some((command) => String(command).includes('ruff check'))).toBe(true);
  expect(suite.cases.find((suiteCase) => suiteCase.tags.includes('blocker'))!.blockers).toHaveLength(1);
  // Between them the cases use every kind of check (`completed` is every case's).
  const used = new Set(
    suite.cases.flatMap((suiteCase) => [
      'completed',
      ...(['unchanged', 'exists', 'absent'] as const).filter((kind) => suiteCase.checks[kind].length > 0),
      ...(suiteCase.checks.commands.length ? ['command'] : []),
      ...(suiteCase.checks.maxIterations ? ['maxIterations'] : []),
      ...(suiteCase.checks.maxCostUsd ? ['maxCostUsd'] : []),
    ]),
  );
  expect([...used].sort()).toEqual([...CHECK_KINDS].sort());
});

test('every built-in case ships with a recording that replays it', () => {
  const suite = builtinSuite();
  const matched = matchRecordings(suite.cases, readRecordings(BUILTIN_RECORDINGS));
  expect([...matched.keys()].sort()).toEqual(suite.cases.map((suiteCase) => suiteCase.id).sort());
  for (const [caseId, replay] of matched) {
    expect(path.basename(replay.recording.file)).toBe(`${caseId}.jsonl`);
    expect(replay.recording.tornLines).toEqual([]);
    expect(replay.model).toBe('scripted-model');
  }
});

test('a bad field is named by its YAML path and line, with what it must be', () => {
  expect(
    load(
      [
        'name: broken',
        'cases:',
        '  - id: Bad_Id',
        '    repo: .',
        '    task:',
        '      descripton: typo',
        '      workspace: /elsewhere',
        '    checks:',
        '      commands: [{ run: "" }]',
        '      maxIterations: 0',
        '      exists: [../outside]',
      ].join('\n'),
    ).split('\n'),
  ).toEqual([
    'suite.yaml:3:9 cases[0].id: must be lower-case letters, digits and dashes, e.g. py-bugfix-median',
    'suite.yaml:7:18 cases[0].task.workspace: is set by codeloop eval: a fresh copy, edited in place',
    'suite.yaml:6:7 cases[0].task.description: Invalid input: expected string, received undefined',
    'suite.yaml:6:7 cases[0].task: unknown key "descripton" (did you mean "description"?)',
    'suite.yaml:9:25 cases[0].checks.commands[0].run: Too small: expected string to have >=1 characters',
    'suite.yaml:11:16 cases[0].checks.exists[0]: must be a path inside the repository, e.g. src/app.py',
    'suite.yaml:10:22 cases[0].checks.maxIterations: Too small: expected number to be >0',
  ]);
});

test('fixtures that are not there are named, relative to the suite', () => {
  const message = load(
    [
      'name: missing',
      'cases:',
      '  - id: a',
      '    repo: nowhere',
      '    task: { description: do it, prdFile: PRD.md }',
      '    checks: { hidden: hidden }',
      '  - id: a',
      '    repo: .',
      '    task: { description: again }',
    ].join('\n'),
  );
  expect(message).toBe(`suite.yaml:7:9 cases[1].id: duplicate case id "a"`);
  expect(
    load(
      [
        'name: missing',
        'cases:',
        '  - id: a',
        '    repo: nowhere',
        '    nodeModules: [left-pad-x]',
        '    task: { description: do it, prdFile: PRD.md }',
        '    checks: { hidden: hidden }',
      ].join('\n'),
    ).split('\n'),
  ).toEqual([
    `suite.yaml:4:11 cases[0].repo: nowhere (from ${dir}) does not exist`,
    `suite.yaml:7:23 cases[0].checks.hidden: hidden (from ${dir}) does not exist`,
    `suite.yaml:5:19 cases[0].nodeModules[0]: left-pad-x is not installed in codeloop's node_modules`,
    `suite.yaml:6:42 cases[0].task.prdFile: PRD.md (from ${dir}) does not exist`,
  ]);
  expect(load('name: [unclosed')).toMatch(/^suite.yaml: /);
  expect(load('name: fine\ncases:\n  - id: ok\n    repo: .\n    task: { description: do it }\n')).toBe('loaded');
});
