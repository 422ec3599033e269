import type { ProcessResult } from '../process/run-process.js';
import { collectionErrors, describeCollectionErrors } from './collection-errors.js';
import { pytestSetting } from './pytest-config.js';
import { shellQuote, type WorkspaceShell } from './run-command.js';

/** A test command as it was run, and what codeloop changed about it so that it could run here at all. */
export interface TestRun {
  /** The command that produced `result`: the one given, or that one adjusted as `notes` say. */
  command: string;
  result: ProcessResult;
  /** What was adjusted and why, for the model; empty when the command ran as given. */
  notes: string[];
}

const isPytest = (command: string) => /(^|\s|\/)(py\.test|pytest)(\s|$)/.test(command);

/**
 * Runs a project's test command, as `run_tests` and the tests gate both do, so that they judge the same run. Two
 * things pytest reports before it runs a single test are set right, and said: `addopts` naming options of plugins
 * not installed here (`--cov` without pytest-cov is a usage error on every run, so a baseline and a final run would
 * compare two usage errors) are dropped with `-o addopts=`; and test files that cannot be collected no longer stop
 * the rest (`--continue-on-collection-errors`), so what can run is compared.
 */
export async function runTestCommand(shell: WorkspaceShell, workspace: string, command: string, timeoutMs: number): Promise<TestRun> {
  const run = (line: string) => shell(line, { workspace, timeoutMs });
  let current: TestRun = { command, result: await run(command), notes: [] };
  if (!isPytest(command)) return current;
  const unknown = unrecognizedOptions(current.result);
  const addopts = pytestSetting(workspace, 'addopts');
  if (unknown.length > 0 && addopts?.some((word) => unknown.includes(word))) {
    const kept = dropOptions(addopts, unknown);
    const adjusted = `${command} -o ${shellQuote(`addopts=${kept.join(' ')}`)}`;
    current = {
      command: adjusted,
      result: await run(adjusted),
      notes: [
        `pytest's addopts name options that no plugin installed here provides (${unknown.join(' ')}), so every run was a usage ` +
          `error; they were left out: \`${adjusted}\`. Run the tests that way when you run pytest yourself.`,
      ],
    };
  }
  const stopped = /Interrupted: \d+ errors? during collection/.test(current.result.output);
  const errors = collectionErrors(current.result.output);
  if (stopped && errors.length > 0) {
    const adjusted = `${current.command} --continue-on-collection-errors`;
    const files = errors.reduce((count, error) => count + error.files.length, 0);
    current = {
      command: adjusted,
      result: await run(adjusted),
      notes: [
        ...current.notes,
        `${files} test file(s) could not be collected, which stopped the whole run; the others ran with \`${adjusted}\`. ` +
          `Why:\n${describeCollectionErrors(errors)
            .map((line) => `- ${line}`)
            .join('\n')}`,
      ],
    };
  }
  return current;
}

/** The words pytest's usage error calls unrecognized (`error: unrecognized arguments: --cov=pkg --cov-report=term`). */
function unrecognizedOptions(result: ProcessResult): string[] {
  if (result.exitCode !== 4) return [];
  const listed = /unrecognized arguments: (.+)$/m.exec(result.output)?.[1];
  return listed ? listed.trim().split(/\s+/) : [];
}

/**
 * `words` without the unknown options, and without the value of one written apart from it (`-n auto`, `--cov pkg`):
 * pytest would take that value for a path.
 */
function dropOptions(words: string[], unknown: string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (!unknown.includes(word)) {
      kept.push(word);
      continue;
    }
    const next = words[index + 1];
    if (word.startsWith('-') && !word.includes('=') && next !== undefined && !next.startsWith('-')) index++;
  }
  return kept;
}
