/**
 * Reading test runners' output: which tests failed, by an identity that survives line shifts and timings, and the
 * report of one failure. Runners: pytest, vitest, jest, node:test (TAP and spec), mocha, tape, go test, cargo test.
 */

const TRACEBACK_LINES = 50;
const MAX_FAILURES = 200;

/**
 * Where each runner's failure report starts, most specific first: pytest's `___ test ___` header, unittest's
 * `FAIL: name (id)` and `ERROR: name (id)`, jest's `●`,
 * vitest's `FAIL file > test`, cargo's `---- name stdout ----`, TAP's `not ok` (node:test, tape), then any failure
 * mark in a result list (go's `--- FAIL`, node:test's `✖`).
 */
const FAILURE_STARTS = [
  /^_{3,} .+ _{3,}$/,
  /^(FAIL|ERROR): \S/,
  /^\s*●\s/,
  /^\s*FAIL\s.*\s>\s/,
  /^---- \S+ stdout ----$/,
  /^\s*not ok\s/,
  /(^|\s)(FAIL:?|✗|×|✕|✖)\s/,
];

/**
 * The runner's closing count: pytest's `1 failed, 3 passed`, jest's `Tests: 1 failed`, TAP's `# fail 3`, mocha's
 * `2 failing`, unittest's `Ran 12 tests in 0.004s` and `FAILED (failures=1, errors=2)`.
 */
const SUMMARY =
  /\b\d+ (failed|passed|failing|passing)\b|Tests?:?\s+\d+ failed|^# (fail|pass)\s+\d+|^Ran \d+ tests? in |^FAILED \((failures|errors)=/;

/**
 * The first failure, up to where the next one (or pytest's closing rule, or TAP's next subtest) starts and at most
 * 50 lines, plus the runner's summary lines. With `name`, the first failure whose opening line names that test.
 * A report longer than that keeps its opening line and the lines around the failing statement (pytest's `>` and
 * `E` lines), so the assertion is never what the cut leaves out. Falls back to the output's tail when no failure
 * marker is recognised.
 */
export function firstFailure(output: string, name?: string): string {
  const lines = output.split(/\r?\n/);
  const marker = FAILURE_STARTS.find((pattern) => lines.some((line) => pattern.test(line) && !TOTAL.test(line)));
  const summary = lines.filter((line) => SUMMARY.test(line)).slice(-2);
  if (!marker) return lines.slice(-TRACEBACK_LINES).join('\n');
  const opens = (line: string) => marker.test(line) && !TOTAL.test(line);
  const named = name === undefined ? -1 : lines.findIndex((line) => opens(line) && line.includes(lastPart(name)));
  const start = named !== -1 ? named : lines.findIndex(opens);
  const next = lines.findIndex((line, index) => index > start && (opens(line) || /^={3,}|^\s*# Subtest:/.test(line)));
  const report = excerpt(lines.slice(start, next === -1 ? lines.length : next));
  return [...report, ...(summary.length ? ['…', ...summary] : [])].join('\n');
}

/** Lines of context kept above the failing statement when a report is cut. */
const ABOVE_FAILURE = 6;

/** A failure report of at most 50 lines: its head, or its opening line and the failing statement with what surrounds it. */
function excerpt(report: string[]): string[] {
  if (report.length <= TRACEBACK_LINES) return report;
  const failing = report.findIndex((line) => /^(>|E) /.test(line));
  if (failing < TRACEBACK_LINES - ABOVE_FAILURE) return report.slice(0, TRACEBACK_LINES);
  const from = failing - ABOVE_FAILURE;
  return [report[0]!, `… ${from - 1} lines of the test's source omitted …`, ...report.slice(from, from + TRACEBACK_LINES - 2)];
}

/**
 * The innermost name of a test id: `test_b` of `tests/test_a.py::TestA::test_b`, `adds` of `math > adds`, `test_b`
 * of unittest's `tests.test_a.TestA.test_b` (older Pythons print it as `test_b (tests.test_a.TestA)`), a unittest
 * sub-test's parameters included.
 */
function lastPart(id: string): string {
  const last = id
    .split(/::| > | › /)
    .pop()!
    .trim();
  return /^[\w.]+\.\w+(\[.*\])?$/.test(last) && !/\.py$/.test(last) ? last.replace(/^[\w.]*\.(?=\w+(\[.*\])?$)/, '') : last;
}

/**
 * What failed, as identities: the failing tests when the output names them, otherwise every line that reports a
 * finding (`file:12:5: F401 …`, eslint's `12:5  warning  …`, tsc's `file(12,5): error …`, any line saying error,
 * warning or failure), each as often as it occurs, however many (a lint baseline of 679 findings holds all 679, so
 * the 680th is new), made comparable by `comparableLine`. Totals (`Found 114 errors.`) are left out: they change
 * when anything is fixed, too.
 */
export function failuresIn(output: string): string[] {
  const tests = failingTests(output);
  if (tests.length > 0) return tests;
  return output
    .split(/\r?\n/)
    .filter((line) => FINDING.some((pattern) => pattern.test(line)) && !TOTAL.test(line))
    .map(comparableLine);
}

const FINDING = [/\b(error|warning|fail(ed|ure)?|exception)\b/i, /^\S+:\d+(:\d+)?:?\s/, /^\s*\d+:\d+\s+\S/];
const TOTAL = /^\s*(Found \d+ errors?|✖ \d+ problems?|\[\*\] \d+ fixable|\d+ (errors?|problems?)\b)/i;

/**
 * A finding line with what changes from run to run taken out, so that the same finding before the task and after
 * it is the same failure: timestamps and clock times, durations, memory addresses (`0x7f3a…`), the directories of
 * absolute paths (a temporary directory's random name, the checkout's or the worktree's location; the file's own
 * name stays), line and column numbers (a finding that only moved), and runs of spaces.
 */
export function comparableLine(line: string): string {
  return line
    .replace(/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>')
    .replace(/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>')
    .replace(/\b0x[0-9a-f]{4,}\b/gi, '0x#')
    .replace(/(?<![\w.:/~-])\/(?:[^\s/:'"()[\],]+\/)+/g, '…/')
    .replace(/\b\d+:\d+(:\d+)?\b/g, '#:#')
    .replace(/\(\d+,\d+\)/g, '(#,#)')
    .replace(/\bline \d+/gi, 'line #')
    .replace(/\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds?)\b/g, '#s')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * pytest's short summary: `FAILED id - message` or `ERROR id` (a file that could not be collected, or a test whose
 * fixture failed). The id is kept whole, parameters with spaces included (`test_words[a b]`).
 */
const PYTEST_SUMMARY = /^(?:FAILED|ERROR) ([^\s[]+(?:\[.*?\])?)(?: - .*)?$/;

/**
 * The failing tests the output names, in order, each once: pytest's `FAILED id` and `ERROR id`, unittest's `FAIL:
 * name (id)` (see `unittestId`), vitest's `FAIL file > name` (and
 * `×`; a file that did not load, `FAIL file [ file ]`, is that file), jest's `● suite › name` (a file that did not
 * load, its `FAIL file`), TAP's `not ok N name` under tape's `# test` heading or node:test's `# Subtest:`,
 * node:test's spec `✖ name`, mocha's numbered `N) name`, go's `--- FAIL: Name` (and a package that does not build,
 * `pkg [build failed]`), cargo's `test name ... FAILED`.
 */
export function failingTests(output: string): string[] {
  const lines = output.split(/\r?\n/);
  const tests: string[] = [];
  const mocha = new Set<string>();
  let heading: string | undefined;
  let suiteFile: string | undefined;
  for (const line of lines) {
    if (TOTAL.test(line)) continue;
    // jest: `FAIL tests/a.test.js`, then `● Test suite failed to run` when the file itself did not load.
    suiteFile = /^\s*FAIL\s+(\S+\.\w+)\s*(?:\(.*\))?$/.exec(line)?.[1] ?? suiteFile;
    if (/^\s*●\s+Test suite failed to run/.test(line) && suiteFile) {
      tests.push(suiteFile);
      continue;
    }
    const comment = /^\s*# (?:Subtest: )?(.+)$/.exec(line)?.[1];
    if (comment && !/^(tests|pass|fail|ok|skip|todo|duration_ms|cancelled|suites)\b/.test(comment)) heading = comment.trim();
    const tap = /^\s*not ok \d+ (?:- )?(.+?)(?:\s+#.*)?$/.exec(line)?.[1];
    if (tap) {
      tests.push(heading && heading !== tap ? `${heading} > ${tap}` : tap);
      continue;
    }
    const numbered = /^\s+(\d+)\) (.+?):?$/.exec(line);
    if (numbered && !mocha.has(numbered[1])) {
      mocha.add(numbered[1]);
      tests.push(numbered[2]);
      continue;
    }
    const unittest = unittestId(line);
    if (unittest) {
      tests.push(unittest);
      continue;
    }
    const match =
      PYTEST_SUMMARY.exec(line) ??
      /^\s*FAIL\s+(\S.*? > .+?)(?:\s+\d+m?s)?$/.exec(line) ??
      /^\s*FAIL\s+(\S+) \[ \S+ \]$/.exec(line) ??
      /^\s*●\s+(.+ › .+)$/.exec(line) ??
      /^\s*✖\s+(.+?)(?:\s+\([\d.]+m?s\))?$/.exec(line) ??
      /^\s*--- FAIL: (\S+)/.exec(line) ??
      /^FAIL\s+(\S+ \[(?:build|setup) failed\])$/.exec(line) ??
      /^test (\S+) \.\.\. FAILED$/.exec(line);
    if (match && !/^(failing tests|tests? failed)/i.test(match[1]) && !UNITTEST_CLOSING.test(line)) tests.push(match[1].trim());
  }
  return [...new Set(tests)].slice(0, MAX_FAILURES);
}

/** unittest's closing line, `FAILED (failures=43, errors=2)`: a count, never a test. */
const UNITTEST_CLOSING = /^FAILED \((failures|errors|skipped|expected failures|unexpected successes)=/;

/**
 * unittest's failure heading as a test id: `FAIL: test_adds (tests.test_calc.TestCalc.test_adds)` is
 * `tests.test_calc.TestCalc.test_adds` (Python before 3.11 prints `test_adds (tests.test_calc.TestCalc)`: the same
 * id), a sub-test's parameters as `[i=2]`; a test module that could not be imported (`ERROR: tests.test_calc
 * (unittest.loader._FailedTest.tests.test_calc)`) is its file, `tests/test_calc.py`.
 */
function unittestId(line: string): string | undefined {
  const heading = /^(?:FAIL|ERROR): ([\w.]+) \(([\w.]+)\)(?: \((.*)\))?\s*$/.exec(line);
  if (!heading) return undefined;
  const [, name, where, params] = heading;
  const failed = /^unittest\.loader\._Failed(?:Test|Import)\.(.+)$/.exec(where!)?.[1];
  if (failed) return `${failed.replace(/\./g, '/')}.py`;
  const id = where!.endsWith(`.${name}`) ? where! : `${where}.${name}`;
  return params ? `${id}[${params}]` : id;
}

/**
 * What a failure is, for telling an old failure from a new one: the test id with pytest's positional parameter ids
 * (`test_total[case3]`, `test_obj[o0-o1]`) reduced to their argument names, since inserting a case renumbers every
 * case after it. Ids of parameters given as values (`test_pair[1-2]`) stay as they are. Compared as counts: three
 * failing `test_total[case]` before the task and three after is nothing new.
 */
export function failureKey(id: string): string {
  return id.replace(/\[([^\]]*)\]$/, (_whole, params: string) => {
    const parts = params.split('-').map((part) => part.replace(/^([A-Za-z_][A-Za-z_]*?)\d+$/, '$1'));
    return `[${parts.join('-')}]`;
  });
}

/**
 * The runner's closing count, in one line (`12 passed in 0.40s`, `Tests  3 passed (3)`, TAP's `# pass 3` and
 * `# fail 0`), for a passing run whose full output would only cost the model context; the output's last line when
 * no count is recognised.
 */
export function countLine(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .reverse();
  const tap = ['tests', 'pass', 'fail', 'skipped', 'todo'].flatMap((word) => {
    const count = lines.find((line) => new RegExp(`^# ${word}\\s+\\d+$`).test(line))?.split(/\s+/)[2];
    return count === undefined || (count === '0' && !['tests', 'pass'].includes(word)) ? [] : [`${word} ${count}`];
  });
  if (tap.length > 0) return tap.join(', ');
  const count = lines.find((line) => SUMMARY.test(line) || /^test result: |^ok\s+\S+\s+[\d.]+s$/.test(line));
  return (count ?? lines[0] ?? '').replace(/^=+\s*|\s*=+$/g, '').slice(0, 300);
}

/**
 * The failing tests, split into those that are new and those that failed before the task too, matched by
 * `failureKey` and counted: a test that failed once before accounts for one failure now.
 */
export function splitByBaseline(failing: readonly string[], knownFailures: readonly string[]): { fresh: string[]; before: string[] } {
  const left = new Map<string, number>();
  for (const id of knownFailures) left.set(failureKey(id), (left.get(failureKey(id)) ?? 0) + 1);
  const fresh: string[] = [];
  const before: string[] = [];
  for (const id of failing) {
    const count = left.get(failureKey(id)) ?? 0;
    left.set(failureKey(id), count - 1);
    (count > 0 ? before : fresh).push(id);
  }
  return { fresh, before };
}
