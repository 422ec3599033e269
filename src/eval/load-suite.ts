import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { parseTaskInput } from '../shared/task-input.js';
import { SuiteSchema, type BlockerAnswer, type CaseFile, type Checks } from './suite-schema.js';
import { installedPackageDir } from './workspace-copy.js';

/** A suite file that cannot be used: each problem with its file, line and YAML path, e.g. `suite.yaml:12:7 cases[1].repo: …`. */
export class SuiteError extends Error {}

/** One case, its paths made absolute and its PRD read, ready to run. */
export interface EvalCase {
  id: string;
  description?: string;
  tags: string[];
  /** The fixture: a directory or a git bundle. */
  repo: string;
  nodeModules: string[];
  /** Task input fields, without `workspace` (each run gets its own copy). */
  task: Record<string, unknown> & { title?: string; description: string };
  blockers: BlockerAnswer[];
  checks: Checks;
}

export interface EvalSuite {
  name: string;
  description?: string;
  /** The suite file, absolute. */
  file: string;
  /** Its directory: fixture paths are relative to it, and results go under it. */
  dir: string;
  cases: EvalCase[];
}

/** Reads and checks a suite file, fixtures included, before anything runs. */
export function loadSuite(file: string): EvalSuite {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new SuiteError(`cannot read suite ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true });
  if (document.errors.length > 0) throw new SuiteError(`${file}: ${document.errors[0].message}`);
  const parsed = SuiteSchema.safeParse(document.toJS());
  const where = (at: PropertyKey[]) => `${file}:${lineOf(document, lineCounter, at)} ${yamlPath(at)}`;
  if (!parsed.success) throw new SuiteError(describeIssues(parsed.error, where));
  const dir = path.dirname(absolute);
  const problems: string[] = [];
  const cases = parsed.data.cases.map((suiteCase, index) =>
    resolveCase(suiteCase, dir, (at, problem) => problems.push(`${where(['cases', index, ...at])}: ${problem}`)),
  );
  if (problems.length > 0) throw new SuiteError(problems.join('\n'));
  return { name: parsed.data.name, description: parsed.data.description, file: absolute, dir, cases };
}

/** The task's title as the workflow will have it (the description's first line when the case gives none). */
export function caseTitle(suiteCase: EvalCase): string {
  return parseTaskInput({ ...suiteCase.task, workspace: '/tmp/codeloop-eval-title/workspace' }).title;
}

function resolveCase(suiteCase: CaseFile, dir: string, problem: (at: PropertyKey[], text: string) => void): EvalCase {
  const resolve = (relative: string) => path.resolve(dir, relative);
  const shown = (relative: string) => `${relative} (from ${dir})`;
  const repo = resolve(suiteCase.repo);
  const isBundle = repo.endsWith('.bundle');
  if (!existsSync(repo)) problem(['repo'], `${shown(suiteCase.repo)} does not exist`);
  else if (!isBundle && !statSync(repo).isDirectory())
    problem(['repo'], `${shown(suiteCase.repo)} is neither a directory nor a *.bundle file`);
  const hidden = suiteCase.checks.hidden && resolve(suiteCase.checks.hidden);
  if (hidden && !existsSync(hidden)) problem(['checks', 'hidden'], `${shown(suiteCase.checks.hidden!)} does not exist`);
  suiteCase.nodeModules.forEach((name, index) => {
    if (!installedPackageDir(name)) problem(['nodeModules', index], `${name} is not installed in codeloop's node_modules`);
  });
  const { prdFile, ...fields } = suiteCase.task;
  let prd: string | undefined;
  if (typeof prdFile === 'string') {
    if (existsSync(resolve(prdFile))) prd = readFileSync(resolve(prdFile), 'utf8');
    else problem(['task', 'prdFile'], `${shown(prdFile)} does not exist`);
  }
  return {
    id: suiteCase.id,
    description: suiteCase.description,
    tags: suiteCase.tags,
    repo,
    nodeModules: suiteCase.nodeModules,
    task: { ...(fields as EvalCase['task']), ...(prd !== undefined ? { prd } : {}) },
    blockers: suiteCase.blockers,
    checks: { ...suiteCase.checks, hidden: hidden || undefined },
  };
}

function describeIssues(error: z.ZodError, where: (at: PropertyKey[]) => string): string {
  return error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join('\n');
}

/** `cases[2].checks.commands[0]`: the path as a reader finds it in the YAML. */
export function yamlPath(at: readonly PropertyKey[]): string {
  if (at.length === 0) return '(suite)';
  return at.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

/** `line:column` of the deepest node of `at` the document has: a missing key points at the object that lacks it. */
function lineOf(document: Document, lineCounter: LineCounter, at: readonly PropertyKey[]): string {
  for (let depth = at.length; depth >= 0; depth--) {
    const node = document.getIn(at.slice(0, depth) as unknown[], true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return `${line}:${col}`;
    }
  }
  return '1:1';
}
