import type { CommandAccess } from '../process/sandbox.js';
import { shellQuote, type WorkspaceShell } from '../tools/run-command.js';
import type { FoundName } from './typescript-names.js';

export const PYTHON_FILE = /\.pyw?$/;

/**
 * Reads the sources from stdin (a JSON object, path to text) and prints the public names of each with Python's own
 * `ast`: top-level functions and classes not starting with `_`, public methods, and CLI commands (argparse's
 * `add_parser('name')`, click's and typer's `@….command('name')` or the decorated function's name).
 */
const SCRIPT = String.raw`
import ast, json, sys
sources = json.load(sys.stdin)
out = {"names": [], "unread": []}
def args(node, skip_self=False):
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args]
    if skip_self and names and names[0] in ("self", "cls"):
        names = names[1:]
    if a.vararg: names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg: names.append("**" + a.kwarg.arg)
    return ", ".join(names)
def command_of(decorator, fallback):
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    if isinstance(target, ast.Attribute) and target.attr == "command":
        if call and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            return call.args[0].value
        return fallback.replace("_", "-")
    return None
for path, text in sources.items():
    try:
        tree = ast.parse(text, path)
    except SyntaxError:
        out["unread"].append(path)
        continue
    def add(name, kind, signature):
        out["names"].append({"file": path, "name": name, "kind": kind, "signature": signature})
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            add(node.name, "function", "%s(%s)" % (node.name, args(node)))
            for decorator in node.decorator_list:
                command = command_of(decorator, node.name)
                if command: add(command, "command", command)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            add(node.name, "class", node.name)
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.name.startswith("_"):
                    method = "%s.%s" % (node.name, member.name)
                    add(method, "method", "%s(%s)" % (method, args(member, True)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                add(node.args[0].value, "command", node.args[0].value)
print(json.dumps(out))
`;

/**
 * The public names of Python files, read by Python's `ast` in the sandbox, as the project's own commands run: the
 * worker never parses the agent's Python itself. The sources go in on stdin (a here-document), so nothing in the
 * workspace is imported or run. Without a Python in the sandbox the files come back unread.
 */
export async function pythonNames(
  shell: WorkspaceShell,
  workspace: string,
  sources: Record<string, string>,
  access?: CommandAccess,
): Promise<{ names: FoundName[]; unread: string[] }> {
  const found = { names: [] as FoundName[], unread: [] as string[] };
  for (const chunk of chunksOf(sources)) {
    const part = await readChunk(shell, workspace, chunk, access);
    found.names.push(...part.names);
    found.unread.push(...part.unread);
  }
  return found;
}

/**
 * One command line carries at most this much source: Linux refuses a single argument over 128 KB (`MAX_ARG_STRLEN`),
 * and the here-document is part of the command.
 */
const CHUNK_CHARS = 96 * 1024;

/** The sources in groups that each fit one command; a file too large for one alone goes into a group of its own. */
function chunksOf(sources: Record<string, string>): Record<string, string>[] {
  const chunks: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  let size = 0;
  for (const [file, text] of Object.entries(sources)) {
    const cost = JSON.stringify(text).length + file.length;
    if (size > 0 && size + cost > CHUNK_CHARS) {
      chunks.push(current);
      current = {};
      size = 0;
    }
    current[file] = text;
    size += cost;
  }
  if (size > 0) chunks.push(current);
  return chunks;
}

async function readChunk(
  shell: WorkspaceShell,
  workspace: string,
  sources: Record<string, string>,
  access?: CommandAccess,
): Promise<{ names: FoundName[]; unread: string[] }> {
  const command = `python3 -c ${shellQuote(SCRIPT)} <<'CODELOOP_SOURCES_END'\n${JSON.stringify(sources)}\nCODELOOP_SOURCES_END`;
  const result = await shell(command, { workspace, timeoutMs: 60_000, ...(access ? { access } : {}) });
  try {
    // stdout and stderr come interleaved: the report is its own line.
    const report = result.output.split('\n').find((line) => line.startsWith('{"names"'));
    if (result.exitCode !== 0 || !report) throw new Error(result.output);
    return JSON.parse(report) as { names: FoundName[]; unread: string[] };
  } catch {
    return { names: [], unread: Object.keys(sources) };
  }
}
