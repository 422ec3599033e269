import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TS from 'typescript';

/** One TypeScript diagnostic as the agent reads it, and the identity that survives line shifts. */
export interface TypeDiagnostic {
  file: string;
  line: number;
  column: number;
  code: number;
  message: string;
}

export interface TypeCheckResult {
  /** Diagnostics that were not there before the task, anywhere in the project, the edited file's first. */
  introduced: TypeDiagnostic[];
  /** How many of the edited file's diagnostics were there before the task. */
  preExisting: number;
}

/**
 * A project kept type-checked between edits, as `tsc --watch` keeps it: the previous program is reused, so after an
 * edit only the files it affects are checked again. Its baseline is the project as committed (the edited file read
 * from `HEAD` the first time it is checked), so what the agent is told is what its edits introduced.
 */
interface Project {
  builder?: TS.SemanticDiagnosticsBuilderProgram;
  baseline?: Map<string, number>;
  /**
   * The project as it was when the task bound its workspace, parsed and bound, while its baseline is still being
   * checked file by file: until then an edit is checked against it in the files the edits changed and the files that
   * import them, so the first edit's feedback never waits for the whole project's check.
   */
  baselining?: TS.Program;
  /** Parsed source files by path, reused while the file's size and mtime stay the same. */
  sources: Map<string, { stamp: string; file: TS.SourceFile }>;
  lastUsed: number;
}

const MAX_PROJECTS = 4;
const IDLE_MS = 30 * 60_000;
const projects = new Map<string, Project>();
/** TypeScript's own lib .d.ts files: the one place outside the workspace the checker reads. */
const require = createRequire(import.meta.url);
const TS_LIB_DIR = realpathSync(path.dirname(require.resolve('typescript/lib/lib.d.ts')));
/** TypeScript loads at the first check, not with the module: most workers and every CLI command never need it. */
let typescript: typeof TS | undefined;
const loadTypeScript = () => (typescript ??= require('typescript') as typeof TS);

/**
 * What a check needs from outside: the edited file's committed text, read in the sandbox by the worker, when the
 * project has no baseline yet (`undefined`: the file is new).
 */
export type CommittedText = { known: true; text: string | undefined } | { known: false };

/** The project is over the checker's limit: its sources are not parsed at all. */
export class ProjectTooLarge extends Error {}

/** A check that cannot go on until the worker has read the edited file's committed text. */
export const NEEDS_COMMITTED = 'needs-committed' as const;

/**
 * Type errors of a `.ts` edit in a workspace with a `tsconfig.json`, including those it causes in other files,
 * against the project as committed. Runs in the type-check process (see `type-check.ts`) with codeloop's own
 * TypeScript and never loads anything from the workspace: it only reads files, and only regular files whose real path
 * is inside the workspace (or TypeScript's lib files), so a symlink cannot bring a file from elsewhere into a
 * diagnostic.
 */
export function checkTypes(workspace: string, file: string, committed: CommittedText): TypeCheckResult | typeof NEEDS_COMMITTED {
  const root = realpathSync(workspace);
  const project = projectOf(root);
  if (project.baselining) return checkChangedFiles(project.baselining, project, root, file);
  if (!project.baseline && !committed.known) return NEEDS_COMMITTED;
  return check(project, root, file, committed.known ? committed.text : undefined);
}

/**
 * Parses and binds the project as it is now, the start of its baseline: asked for when a task binds its workspace.
 * Once this returns, an edit may be written (the baseline has read every file) and can be checked in a fraction of a
 * second; `baselineTypeCheck` then checks the whole project in the background.
 */
export function parseTypeCheck(workspace: string): void {
  const root = realpathSync(workspace);
  const project = projectOf(root);
  if (project.baseline || project.baselining) return;
  const builder = updateBuilder(project, root);
  builder.getProgram().getTypeChecker();
  project.baselining = builder.getProgram();
}

/**
 * Checks the whole project as `parseTypeCheck` read it and keeps that as its baseline, a file at a time, giving way
 * between files so that the edits' checks are answered meanwhile; "before the task" then means exactly that.
 */
export async function baselineTypeCheck(workspace: string): Promise<void> {
  const root = realpathSync(workspace);
  const project = projectOf(root);
  const builder = project.builder;
  if (!project.baselining || !builder) return;
  try {
    let slice = performance.now();
    while (builder.getSemanticDiagnosticsOfNextAffectedFile()) {
      if (performance.now() - slice < SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    project.baseline = countByIdentity(diagnosticsOfBuilder(builder, root));
  } finally {
    // Without a baseline, the next check takes one against the edited file's committed text, as with no parse at all.
    project.baselining = undefined;
  }
}

/** How long the baseline's check runs before it lets an edit's check in. */
const SLICE_MS = 50;

/**
 * An edit checked against the project as the task found it while that project's whole check is still running: the
 * files changed since (and the files that import them) in a program that reuses every other parsed and bound file,
 * their diagnostics now against theirs then. An error the edits cause further away is not seen here; the next check
 * after the baseline, and the gates, see the whole project.
 */
function checkChangedFiles(before: TS.Program, project: Project, root: string, file: string): TypeCheckResult {
  const ts = loadTypeScript();
  const { fileNames, options, host } = compilerSetup(project, root);
  const now = ts.createProgram({ rootNames: fileNames, options, host, oldProgram: before });
  const changed = now.getSourceFiles().filter((source) => before.getSourceFile(source.fileName) !== source);
  const gone = before.getSourceFiles().filter((source) => !now.getSourceFile(source.fileName));
  const targets = [...changed, ...gone].map((source) => source.fileName);
  const checked = [...new Set([...targets, ...importersOf(now, options, host, targets)])];
  const diagnostics = (program: TS.Program) =>
    checked.flatMap((name) => {
      const source = program.getSourceFile(name);
      if (!source) return [];
      return errorsOf(root, [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]);
    });
  return compare(countByIdentity(diagnostics(before)), diagnostics(now), file);
}

/**
 * The project's files that import one of `targets`: a cheap look at each import's last path segment first, then the
 * compiler's own module resolution (tsconfig `paths` included) for the few that may.
 */
function importersOf(program: TS.Program, options: TS.CompilerOptions, host: TS.CompilerHost, targets: string[]): string[] {
  const ts = loadTypeScript();
  const stem = (name: string) => path.basename(name).replace(/(\.d)?\.[cm]?[jt]sx?$/, '');
  const names = new Set(targets.flatMap((name) => (stem(name) === 'index' ? [path.basename(path.dirname(name))] : [stem(name)])));
  const wanted = new Set(targets);
  const cache = ts.createModuleResolutionCache(program.getCurrentDirectory(), (name) => name, options);
  return program
    .getSourceFiles()
    .filter((source) => !source.isDeclarationFile || !source.fileName.includes('/node_modules/'))
    .filter((source) =>
      source.statements.some((statement) => {
        const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
        if (!specifier || !ts.isStringLiteral(specifier) || !names.has(stem(specifier.text))) return false;
        const resolved = ts.resolveModuleName(specifier.text, source.fileName, options, host, cache).resolvedModule;
        return resolved !== undefined && wanted.has(path.resolve(resolved.resolvedFileName));
      }),
    )
    .map((source) => source.fileName);
}

function projectOf(root: string): Project {
  const now = Date.now();
  for (const [key, project] of projects) if (now - project.lastUsed > IDLE_MS) projects.delete(key);
  let project = projects.get(root);
  if (project) projects.delete(root);
  project ??= { sources: new Map(), lastUsed: now };
  project.lastUsed = now;
  projects.set(root, project);
  while (projects.size > MAX_PROJECTS) projects.delete(projects.keys().next().value!);
  return project;
}

function check(project: Project, root: string, file: string, before: string | undefined): TypeCheckResult {
  const edited = path.join(root, file);
  project.baseline ??= countByIdentity(diagnosticsOf(project, root, { [edited]: before ?? '' }));
  return compare(project.baseline, diagnosticsOf(project, root), file);
}

/** The diagnostics of `now` that `before` did not have, the edited file's first, and how many of its own it had. */
function compare(before: Map<string, number>, now: TypeDiagnostic[], file: string): TypeCheckResult {
  const baseline = new Map(before);
  const introduced: TypeDiagnostic[] = [];
  let preExisting = 0;
  for (const diagnostic of now) {
    const key = identity(diagnostic);
    const left = baseline.get(key) ?? 0;
    baseline.set(key, left - 1);
    if (left <= 0) introduced.push(diagnostic);
    else if (diagnostic.file === file) preExisting += 1;
  }
  introduced.sort((a, b) => Number(b.file === file) - Number(a.file === file));
  return { introduced, preExisting };
}

/** Every diagnostic of the project now, re-checking only what changed since the last call; `overlay` replaces files' text. */
function diagnosticsOf(project: Project, root: string, overlay: Record<string, string> = {}): TypeDiagnostic[] {
  const builder = updateBuilder(project, root, overlay);
  // Checks the files the change affects; the others keep the diagnostics of their last check.
  while (builder.getSemanticDiagnosticsOfNextAffectedFile());
  return diagnosticsOfBuilder(builder, root);
}

/** The project's builder moved to the files as they are now (`overlay` replacing some), nothing checked yet. */
function updateBuilder(project: Project, root: string, overlay: Record<string, string> = {}): TS.SemanticDiagnosticsBuilderProgram {
  const ts = loadTypeScript();
  const { fileNames, options, host, errors } = compilerSetup(project, root, overlay);
  project.builder = ts.createSemanticDiagnosticsBuilderProgram(fileNames, options, host, project.builder, errors);
  return project.builder;
}

/** Every error a builder holds, from the config to the last file's semantics (what is not checked yet is checked). */
function diagnosticsOfBuilder(builder: TS.SemanticDiagnosticsBuilderProgram, root: string): TypeDiagnostic[] {
  const all = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getSemanticDiagnostics(),
  ];
  return errorsOf(root, all);
}

/** The errors among TypeScript's diagnostics, as the agent reads them (warnings and suggestions are not its to fix). */
function errorsOf(root: string, diagnostics: readonly TS.Diagnostic[]): TypeDiagnostic[] {
  const ts = loadTypeScript();
  return diagnostics
    .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
    .map((diagnostic) => toTypeDiagnostic(root, diagnostic));
}

/** The project's files and options from its tsconfig.json, and a compiler host that reads only what it may. */
function compilerSetup(project: Project, root: string, overlay: Record<string, string> = {}) {
  const ts = loadTypeScript();
  const guard = fileGuard(root);
  const system: TS.System = {
    ...ts.sys,
    fileExists: (name) => guard(name) && ts.sys.fileExists(name),
    directoryExists: (name) => guard(name, true) && ts.sys.directoryExists(name),
    readFile: (name) => (guard(name) ? ts.sys.readFile(name) : undefined),
    readDirectory: (...args) => ts.sys.readDirectory(...args).filter((name) => guard(name)),
    getDirectories: (name) => (guard(name, true) ? ts.sys.getDirectories(name) : []),
    write: () => undefined,
    writeFile: () => undefined,
  };
  const configFile = path.join(root, 'tsconfig.json');
  const configProblems: TS.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    { noEmit: true },
    { ...system, onUnRecoverableConfigFileDiagnostic: (diagnostic) => configProblems.push(diagnostic) },
  );
  if (!parsed)
    throw new Error(`tsconfig.json: ${configProblems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')}`);
  if (!project.builder) refuseLargeProject(parsed.fileNames);
  const options = { ...parsed.options, noEmit: true, plugins: undefined, incremental: false, composite: false };
  const host = ts.createCompilerHost(options);
  Object.assign(host, {
    fileExists: system.fileExists,
    readFile: system.readFile,
    directoryExists: system.directoryExists,
    getDirectories: system.getDirectories,
    realpath: (name: string) => (guard(name) ? ts.sys.realpath!(name) : name),
    writeFile: () => undefined,
    getSourceFile: (name: string, language: TS.ScriptTarget | TS.CreateSourceFileOptions) =>
      sourceFile(project, guard, name, language, overlay[name]),
  });
  return { fileNames: parsed.fileNames, options, host, errors: parsed.errors };
}

/**
 * The checker's ceiling, checked before the first parse: above it a project's sources are never read (a 46 MB project
 * took a worker's heap; 28 MB held a thread for 29 s).
 */
export const MAX_SOURCE_BYTES = 32 * 1024 * 1024;

function refuseLargeProject(fileNames: readonly string[]): void {
  let total = 0;
  for (const name of fileNames) {
    total += statSync(name, { throwIfNoEntry: false })?.size ?? 0;
    if (total > MAX_SOURCE_BYTES)
      throw new ProjectTooLarge(
        `the project's TypeScript sources (${fileNames.length} files) are over ${MAX_SOURCE_BYTES / 1024 / 1024} MB, the incremental checker's limit`,
      );
  }
}

/** A source file, parsed once per version (size and mtime); the overlay's text wins and is never cached. */
function sourceFile(
  project: Project,
  guard: (name: string) => boolean,
  name: string,
  language: TS.ScriptTarget | TS.CreateSourceFileOptions,
  overlay: string | undefined,
): TS.SourceFile | undefined {
  const ts = loadTypeScript();
  if (overlay !== undefined) return versioned(ts.createSourceFile(name, overlay, language), `overlay:${overlay.length}:${hash(overlay)}`);
  if (!guard(name)) return undefined;
  const stats = statSync(name, { throwIfNoEntry: false });
  if (!stats?.isFile()) return undefined;
  const stamp = `${stats.size}:${stats.mtimeMs}`;
  const cached = project.sources.get(name);
  if (cached?.stamp === stamp) return cached.file;
  const file = versioned(ts.createSourceFile(name, readFileSync(name, 'utf8'), language), stamp);
  project.sources.set(name, { stamp, file });
  return file;
}

/** The builder tells a changed file by its version; a file parsed from the same bytes keeps it. */
function versioned(file: TS.SourceFile, version: string): TS.SourceFile {
  (file as TS.SourceFile & { version: string }).version = version;
  return file;
}

function hash(text: string): string {
  let value = 0;
  for (let index = 0; index < text.length; index += 1) value = (Math.imul(value, 31) + text.charCodeAt(index)) | 0;
  return (value >>> 0).toString(36);
}

/**
 * Whether the checker may read `name`: its real path is inside the workspace or TypeScript's lib directory, and it
 * is a regular file (or, with `directory`, a directory). A FIFO would block the read, a symlink out could bring a
 * secret into a diagnostic.
 */
function fileGuard(root: string): (name: string, directory?: boolean) => boolean {
  const seen = new Map<string, boolean>();
  return (name, directory = false) => {
    const key = `${directory}:${name}`;
    let allowed = seen.get(key);
    if (allowed === undefined) {
      allowed = isAllowed(root, name, directory);
      seen.set(key, allowed);
    }
    return allowed;
  };
}

function isAllowed(root: string, name: string, directory: boolean): boolean {
  let real: string;
  try {
    real = realpathSync(name);
  } catch {
    // Not there (yet): a missing path reads nothing, and TypeScript asks about many.
    return false;
  }
  const inside = (dir: string) => real === dir || real.startsWith(`${dir}${path.sep}`);
  if (!inside(root) && !inside(TS_LIB_DIR)) return false;
  const stats = lstatSync(real, { throwIfNoEntry: false });
  return directory ? Boolean(stats?.isDirectory()) : Boolean(stats?.isFile());
}

function toTypeDiagnostic(root: string, diagnostic: TS.Diagnostic): TypeDiagnostic {
  const ts = loadTypeScript();
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  if (!diagnostic.file || diagnostic.start === undefined)
    return { file: 'tsconfig.json', line: 0, column: 0, code: diagnostic.code, message };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { file: path.relative(root, diagnostic.file.fileName), line: line + 1, column: character + 1, code: diagnostic.code, message };
}

const identity = (diagnostic: TypeDiagnostic) => `${diagnostic.file}|TS${diagnostic.code}|${diagnostic.message}`;

function countByIdentity(diagnostics: TypeDiagnostic[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const diagnostic of diagnostics) counts.set(identity(diagnostic), (counts.get(identity(diagnostic)) ?? 0) + 1);
  return counts;
}

/** As tsc prints them with `--pretty false`, so the agent reads what it would read from tsc. */
export function formatTypeDiagnostics(diagnostics: TypeDiagnostic[]): string {
  return diagnostics.map((d) => `${d.file}(${d.line},${d.column}): error TS${d.code}: ${d.message}`).join('\n');
}
