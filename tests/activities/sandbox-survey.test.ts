import { expect, test } from 'vitest';
import { describeImport, surveySandbox } from '../../src/activities/sandbox-survey.js';
import { sandboxedShell } from '../support/sandbox.js';
import { makeWorkspace } from '../support/workspace.js';

const shell = sandboxedShell(process.env);

test('a Python src layout: the interpreter and pytest with versions, what is missing, and where the tests import the package from', async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '[project]\nname = "humble"\n[tool.codeloop-no-such-checker]\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'requirements-dev.txt': 'pytest\nmypy\nruff\n',
    'src/humble/__init__.py': 'VERSION = "1"\n',
    'src/broken/__init__.py': 'import codeloop_no_such_module\n',
    'tests/test_a.py': '',
  });
  const survey = await surveySandbox(shell, workspace);
  expect(survey.tools).toContainEqual({ name: 'python3', version: expect.stringMatching(/^3\.\d+\.\d+/) });
  expect(survey.tools).toContainEqual({ name: 'pytest', version: expect.stringMatching(/^\d+\.\d+/) });
  expect(survey.tools.some((tool) => tool.name === 'node')).toBe(false);
  for (const name of survey.missing) expect(survey.tools.some((tool) => tool.name === name)).toBe(false);
  expect(survey.missing).not.toContain('pytest');
  expect(survey.imports).toEqual([
    "`import broken` fails where the tests run (with PYTHONPATH=src, as run_tests and the gates run them): ModuleNotFoundError: No module named 'codeloop_no_such_module'",
    'the tests import `humble` from src/humble/, in this workspace (with PYTHONPATH=src, as run_tests and the gates run them)',
  ]);
}, 30_000);

test('a Node project: node and the tools in node_modules, with their versions; one named in package.json but absent is missing', async () => {
  const workspace = makeWorkspace({
    'package.json': JSON.stringify({ devDependencies: { typescript: '^5', vitest: '^3' } }),
    'node_modules/.bin/tsc': '#!/bin/sh\n',
    'node_modules/typescript/package.json': JSON.stringify({ name: 'typescript', version: '5.9.3' }),
  });
  const survey = await surveySandbox(shell, workspace);
  expect(survey.tools).toContainEqual({ name: 'node', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  expect(survey.tools).toContainEqual({ name: 'tsc (typescript)', version: '5.9.3' });
  expect(survey.missing).toEqual(['vitest']);
  expect(survey.imports).toEqual([]);
}, 30_000);

test('a package imported from outside the workspace is named as such', () => {
  expect(describeImport('/w', 'humanize', '/usr/lib/python3/dist-packages/humanize/__init__.py', '')).toBe(
    "`import humanize` finds /usr/lib/python3/dist-packages/humanize/__init__.py, a copy installed outside this workspace: tests would not exercise your changes; run them so they import the workspace's copy",
  );
});

test("what PATH holds is surveyed once per worker and kind of project: the next task's survey starts no sandbox for it", async () => {
  let started = 0;
  const counting: typeof shell = (command, options) => {
    started += 1;
    return shell(command, options);
  };
  const node = () => makeWorkspace({ 'package.json': '{}' });
  const first = await surveySandbox(counting, node());
  expect(started).toBe(1);
  expect(await surveySandbox(counting, node())).toEqual(first);
  expect(started).toBe(1);
  // A Python package still gets its own import check.
  await surveySandbox(counting, makeWorkspace({ 'pyproject.toml': '', 'calc/__init__.py': '' }));
  await surveySandbox(counting, makeWorkspace({ 'pyproject.toml': '', 'calc/__init__.py': '' }));
  expect(started).toBe(1 + 2 + 1);
}, 30_000);

test("a package on the path pytest's own pythonpath setting adds is imported as pytest imports it", async () => {
  const workspace = makeWorkspace({
    'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    'stats/__init__.py': '',
  });
  expect((await surveySandbox(shell, workspace)).imports).toEqual([
    "the tests import `stats` from stats/, in this workspace (on the path pytest's pythonpath setting adds: .)",
  ]);
}, 30_000);
