import { forEachChild, parse, type Command, type SyntaxNode, type Word } from 'unbash';
import { isExpanding, isOption, programName } from './command-word.js';
import { unwrap } from './wrappers.js';

/** One program a command line runs, wherever it sits: top level, a pipeline, `$(…)`, a `bash -c` string, `eval`. */
export interface SimpleCommand {
  /** The program after wrappers (`rm` for `env X=1 nice /bin/rm`), or `undefined` for an assignment alone. */
  program: string | undefined;
  /** Its arguments, quotes removed. */
  args: string[];
  /** Files its output is redirected to (`/dev/null` and the standard streams left out). */
  writes: string[];
  /** Programs earlier in its pipeline, whose output it reads. */
  pipedFrom: string[];
  /** Variables it sets for itself or for what follows: `X=1 cmd`, `env X=1 cmd`, `export X=1`. */
  assigns: string[];
}

/** Every simple command found, and why any part of the line could not be seen into (empty when all of it was). */
export interface CommandLine {
  commands: SimpleCommand[];
  unseen: string[];
}

/** Programs that read a script: as a `-c` string, from standard input, or from a file argument. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'yash', 'rbash']);
/** Interpreters that run what arrives on standard input when given no script (or `-`). */
const STDIN_INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'perl', 'ruby', 'php', 'lua', 'deno', 'bun', 'tclsh']);
/** Shell options that take the next word as their value. */
const SHELL_VALUED_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--init-file', '--rcfile']);
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const WRITE_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
/** `bash -c "sh -c 'eval …'"` nests; past this many levels the line is not looked into any further. */
const MAX_DEPTH = 6;

/**
 * Parses a command line with a real shell parser and lists every simple command it would run, looking into the
 * places a regex misses: quoting (`r''m`), command and process substitution, functions and compound commands,
 * the scripts given to `bash -c`, `eval`, `env -S` and `trap`, and here-documents fed to a shell. What cannot be
 * known before it runs (a command word from an expansion, a pipe into a shell, text that does not parse) is
 * reported in `unseen`.
 */
export function readCommandLine(source: string): CommandLine {
  const line: CommandLine = { commands: [], unseen: [] };
  readScript(source, 0, line);
  return line;
}

function readScript(source: string, depth: number, line: CommandLine): void {
  if (depth > MAX_DEPTH) {
    line.unseen.push(`scripts nested more than ${MAX_DEPTH} deep`);
    return;
  }
  const script = parse(source);
  if (script.errors?.length) line.unseen.push(`text the shell parser rejects (${script.errors[0].message})`);
  visit(script, [], depth, line);
}

function visit(node: SyntaxNode, pipedFrom: string[], depth: number, line: CommandLine): void {
  if (node.type === 'Pipeline') {
    const earlier: string[] = [];
    for (const command of node.commands) {
      visit(command, [...earlier], depth, line);
      earlier.push(command.type === 'Command' && command.name ? programName(command.name.value) : command.type);
    }
    return;
  }
  if (node.type === 'Command') readCommand(node, pipedFrom, depth, line);
  forEachChild(node, (child) => visit(child, [], depth, line));
}

function readCommand(node: Command, pipedFrom: string[], depth: number, line: CommandLine): void {
  const words = [node.name, ...node.args].flatMap((argument): Word[] => {
    if (argument?.type === 'Word') return [argument];
    // `alias ll='…'`, `export A=…`: an argument the parser reads as an assignment, kept as the word it also is.
    if (argument?.type === 'Assignment' && argument.value.type === 'Word')
      return [{ ...argument.value, value: `${argument.name}=${argument.value.value}`, text: argument.text }];
    return [];
  });
  const writes = node.redirects.flatMap((redirect) =>
    redirect.type === 'Redirect' &&
    WRITE_OPERATORS.has(redirect.operator) &&
    redirect.target &&
    !isDescriptor(redirect.target.value) &&
    !HARMLESS_TARGETS.has(redirect.target.value)
      ? [redirect.target.value]
      : [],
  );
  const run = unwrap(words);
  const assigns = [
    ...node.prefix.flatMap((part) => (part.type === 'Assignment' ? [part.name] : [])),
    ...words.slice(0, words.length - run.length).flatMap((word) => assignedName(word.value) ?? []),
    ...(run[0] && SETTERS.has(programName(run[0].value)) ? run.slice(1).flatMap((word) => assignedName(word.value) ?? []) : []),
  ];
  if (run.length === 0) {
    if (node.name || assigns.length > 0) line.commands.push({ program: undefined, args: [], writes, pipedFrom, assigns });
    return;
  }
  if (isExpanding(run[0])) line.unseen.push(`a command word that comes from an expansion (${run[0].text})`);
  const program = programName(run[0].value);
  const args = run.slice(1);
  line.commands.push({ program, args: args.map((word) => word.value), writes, pipedFrom, assigns });
  for (const script of embeddedScripts(program, words, args, line)) readScript(script, depth + 1, line);
  if (readsStandardInput(program, args)) {
    const fed = node.redirects.flatMap((redirect) =>
      redirect.type === 'HereDoc' ? [redirect.body.text] : redirect.type === 'HereString' && redirect.target ? [redirect.target.value] : [],
    );
    for (const script of fed) readScript(script, depth + 1, line);
    if (pipedFrom.length > 0) line.unseen.push(`a pipe into ${program} (${pipedFrom.join(' | ')} | ${program})`);
  }
}

/** The scripts a command runs from its own arguments; an expanding script cannot be read and is reported. */
function embeddedScripts(program: string, words: readonly Word[], args: readonly Word[], line: CommandLine): string[] {
  const scripts: Word[] = [];
  if (program === 'eval') scripts.push(...args);
  else if (program === 'trap' && args.length > 1 && !isOption(args[0].value)) scripts.push(args[0]);
  else if (program === 'alias') scripts.push(...args.filter((word) => word.value.includes('=')));
  else if (SHELLS.has(program)) {
    const command = shellCommandString(args);
    if (command) scripts.push(command);
  }
  const envSplit = words.findIndex((word) => word.value === '-S' || word.value === '--split-string');
  if (programName(words[0]?.value ?? '') === 'env' && envSplit !== -1 && words[envSplit + 1]) scripts.push(words[envSplit + 1]);
  return scripts.flatMap((word) => {
    if (isExpanding(word)) {
      line.unseen.push(`a script that comes from an expansion (${program} ${word.text})`);
      return [];
    }
    return [program === 'alias' ? word.value.slice(word.value.indexOf('=') + 1) : word.value];
  });
}

/** The word after a shell's options when they include `c` (`-c`, `-ec`, `-lc`): the script it runs. */
function shellCommandString(args: readonly Word[]): Word | undefined {
  let takesCommand = false;
  for (let index = 0; index < args.length; index += 1) {
    const value = args[index].value;
    if (value === '--' || !isOption(value)) return takesCommand ? args[value === '--' ? index + 1 : index] : undefined;
    if (SHELL_VALUED_OPTIONS.has(value)) index += 1;
    else if (!value.startsWith('--') && value.slice(1).includes('c')) takesCommand = true;
  }
  return undefined;
}

/** A shell with no script file or `-c` (or with `-s`), or an interpreter given no script or `-`, runs its input. */
function readsStandardInput(program: string, args: readonly Word[]): boolean {
  const values = args.map((word) => word.value);
  const operands = values.filter((value) => !isOption(value));
  if (SHELLS.has(program)) return values.includes('-s') || (!shellCommandString(args) && operands.length === 0);
  if (program === 'source' || program === '.') return ['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-'].includes(operands[0] ?? '');
  if (STDIN_INTERPRETERS.has(program) || /^python3\.\d+$/.test(program)) {
    return operands[0] === '-' || (operands.length === 0 && !values.some((value) => /^-[A-Za-z]*[cemr]/.test(value) || value === '--eval'));
  }
  return false;
}

/** Builtins whose arguments set variables for what runs after them. */
const SETTERS = new Set(['export', 'declare', 'typeset', 'readonly', 'local']);

const assignedName = (word: string) => /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word)?.[1];

function isDescriptor(target: string): boolean {
  return /^\d+$/.test(target) || target === '-';
}
