import { z } from 'zod';
import { COMMAND_TIMEOUT } from './constants.js';
import { SubmitPlanSchema } from './plan.js';
import { builtOnce } from './built-once.js';

/**
 * The tools the model sees, exactly as the seed design names them. Each zod schema is the single source of truth:
 * it produces the API's `input_schema` and validates what the model sends back.
 */
export const toolInputSchemas = builtOnce(
  'tools/toolInputSchemas',
  () =>
    ({
      read_file: z.object({
        path: z.string().min(1).describe('File path relative to the workspace root'),
        start_line: z.number().int().min(1).optional().describe('First line to show (1-based)'),
        end_line: z.number().int().min(1).optional().describe('Last line to show (inclusive)'),
      }),
      edit_file: z.object({
        path: z.string().min(1).describe('File path relative to the workspace root'),
        edits: z
          .array(
            z.object({
              search: z.string().min(1).describe('Exact lines currently in the file; must match one place only'),
              replace: z.string().describe('Lines to put in their place'),
            }),
          )
          .min(1)
          .describe('Applied in order; all apply or none do'),
      }),
      create_file: z.object({
        path: z.string().min(1).describe('New file path relative to the workspace root'),
        content: z.string().describe('Full content of the new file'),
      }),
      delete_file: z.object({
        path: z.string().min(1).describe('File path relative to the workspace root'),
      }),
      move_file: z.object({
        from: z.string().min(1).describe('The file to move, relative to the workspace root'),
        to: z.string().min(1).describe('Its new path, relative to the workspace root; must not exist yet'),
      }),
      search_codebase: z.object({
        pattern: z.string().min(1).describe('Regular expression searched line by line'),
        file_glob: z.string().optional().describe('Limit the search to files matching this glob, e.g. "src/**/*.ts"'),
        case_insensitive: z.boolean().optional().describe('Match letters in either case'),
        max_results: z.number().int().min(1).max(200).default(20).describe('Maximum matching lines to return'),
      }),
      find_symbol: z.object({
        name: z.string().min(1).describe('A function, class, type, method or constant name, e.g. "parseConfig"'),
        max_results: z.number().int().min(1).max(200).default(20).describe('Maximum lines of use to return'),
      }),
      list_files: z.object({
        path: z.string().optional().describe('Directory relative to the workspace root (default: the root)'),
        pattern: z.string().optional().describe('Only list files matching this glob'),
        max_depth: z.number().int().min(1).max(10).default(3).describe('How many directory levels to descend'),
        page: z.number().int().min(1).optional().describe('Which page of a long listing to show (1-based)'),
      }),
      run_command: z.object({
        command: z.string().min(1).describe('Shell command, run in the workspace root'),
        timeout: z
          .number()
          .min(1)
          .max(COMMAND_TIMEOUT.maxSeconds)
          .default(COMMAND_TIMEOUT.defaultSeconds)
          .describe(`Seconds before the command is killed (max ${COMMAND_TIMEOUT.maxSeconds})`),
      }),
      run_tests: z.object({
        test_path: z.string().optional().describe('A test file or directory; default: the whole suite'),
        verbose: z.boolean().optional().describe('Full output instead of the first failure'),
      }),
      raise_blocker: z.object({
        question: z.string().min(1).describe('What you need from a human, as one clear question'),
        context: z.string().optional().describe('What you tried and why you cannot decide alone'),
      }),
    }) as const,
);

export type ToolName = keyof typeof toolInputSchemas;
export type ToolInput<N extends ToolName> = z.output<(typeof toolInputSchemas)[N]>;

const descriptions: Record<ToolName, string> = {
  read_file:
    "Read a text file with line numbers. A file of up to 500 lines is shown whole; a longer one shows its first 200 and last 50 unless you give a range. One call shows at most 2,000 lines and 100,000 characters, and cuts lines longer than 2,000 characters; every cut names the file's own line numbers and how to read on.",
  edit_file:
    'Edit a file with search/replace blocks. Each search block must match exactly one place; copy it from read_file output without the line numbers (a block with "N | " on every line is taken without them). Returns a unified diff, or the nearest lines when a block does not match. Edits UTF-8 text files only, never under .git/.',
  create_file:
    'Create a new file. Fails if the file exists: use edit_file for existing files. Never under .git/: codeloop manages git itself.',
  delete_file: 'Delete a file in the workspace. Files only, never under .git/; recorded in the task like every edit.',
  move_file:
    'Move or rename a file in the workspace, making the directories on the way. Refuses to overwrite an existing file; never under .git/.',
  search_codebase:
    'Search file contents with a regular expression (ripgrep syntax; look-around and backreferences work too). Returns matching lines verbatim as path:line | text, the way read_file shows them. Skips binary files, files over 1 MB, gitignored files, and node_modules, build output and caches unless file_glob starts inside them (e.g. dist/**/*.js).',
  find_symbol:
    'Find where a name is defined (TypeScript, JavaScript, Python, Go: functions, classes, types, methods, constants) and the lines that use it, as path:line | text.',
  list_files:
    'List files under a directory, skipping .git, node_modules, build output, caches and gitignored paths; a path inside dist/ or node_modules/ lists it. A long listing starts with its directories and their file counts, then shows one page at a time.',
  run_command: 'Run a shell command in the workspace root. Output over 4,000 characters keeps the first and last 2,000.',
  run_tests:
    "Run the project's tests (npm test, pytest, or codeloop.json's test command). A passing run is one line with its count; a failing one lists the failing tests, new ones first, and the first new failure's report (verbose: the whole output).",
  raise_blocker:
    'Ask a human a question you cannot answer yourself: unclear requirements, missing access or credentials, an external service. The task waits for the answer, which comes back as this tool result.',
};

/** The activity that carries out each workspace tool; `raise_blocker` is answered by the workflow itself. */
export const TOOL_ACTIVITIES = {
  read_file: 'readFile',
  list_files: 'listFiles',
  search_codebase: 'searchCodebase',
  find_symbol: 'findSymbol',
  create_file: 'createFile',
  edit_file: 'editFile',
  delete_file: 'deleteFile',
  move_file: 'moveFile',
  run_command: 'runCommand',
  run_tests: 'runTests',
} as const satisfies Record<Exclude<ToolName, 'raise_blocker'>, string>;

export type WorkspaceToolName = keyof typeof TOOL_ACTIVITIES;

/** Tools that run processes: they heartbeat and are killed with their process group on cancel. */
export const COMMAND_TOOLS: ReadonlySet<ToolName> = new Set(['run_command', 'run_tests']);

/** Tools that touch nothing: calls to them in one turn may run at the same time. */
export const CONCURRENT_TOOLS: ReadonlySet<ToolName> = new Set([
  'read_file',
  'list_files',
  'search_codebase',
  'find_symbol',
  'raise_blocker',
]);

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolInputSchemas, name);
}

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/** Which tools a model request offers: the agent's, the planner's, or none (summaries). */
export type ToolSet = 'agent' | 'plan' | 'none';

/** What planning may do before it submits: read, never change or run anything. */
export const PLANNING_TOOLS: ReadonlySet<ToolName> = new Set(['read_file', 'list_files', 'search_codebase']);

export const SUBMIT_PLAN = 'submit_plan';

const SUBMIT_PLAN_DESCRIPTION =
  'Submit the plan: the tasks that together build what the requirements ask for, each small enough for one focused coding session, with the ids of the tasks it builds on, its complexity (1-5), checkable acceptance criteria and the files it expects to touch. Tasks without a dependency path between them run at the same time, so two tasks that change the same file should depend on each other.';

/** The `tools` array of a Messages API request. `input_schema` must be an object schema; the tests hold it to that. */
export function toolDefinitions(set: ToolSet = 'agent'): ToolDefinition[] {
  return set === 'none' ? [] : definitions[set];
}

/**
 * Converted once, with the schemas: the descriptions live in the registry of the zod that built them, which in a
 * workflow thread is the first run's (see `builtOnce`).
 */
const definitions = builtOnce('tools/definitions', () => {
  const tools = (set: 'agent' | 'plan') =>
    (Object.keys(toolInputSchemas) as ToolName[])
      .filter((name) => set === 'agent' || PLANNING_TOOLS.has(name))
      .map((name) => definition(name, toolInputSchemas[name], descriptions[name]));
  return { agent: tools('agent'), plan: [...tools('plan'), definition(SUBMIT_PLAN, SubmitPlanSchema, SUBMIT_PLAN_DESCRIPTION)] };
});

function definition(name: string, inputSchema: z.ZodType, description: string): ToolDefinition {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(inputSchema, { io: 'input' }) as Record<string, unknown>;
  if (schema.type !== 'object') throw new Error(`tool ${name}: input schema must be an object`);
  return { name, description, input_schema: schema as ToolDefinition['input_schema'] };
}
