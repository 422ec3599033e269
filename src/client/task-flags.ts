import path from 'node:path';
import { Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { TaskInputFieldsSchema } from '../shared/task-input.js';
import { readInputFile } from './input-file.js';
import { CliError } from './output.js';

type TaskField = keyof typeof TaskInputFieldsSchema.shape;

interface FieldFlag {
  /** The commander flag, e.g. `--max-cost-usd <usd>`. */
  flag: string;
  help: string;
  /** The field's value from the flag's text; the workflow's schema then checks it and names the field if it is wrong. */
  read(text: string): unknown;
}

/** Flags whose text is the value, a number, or a comma-separated list. */
const text = (flag: string, help: string): FieldFlag => ({ flag, help, read: (value) => value });
const number = (flag: string, help: string): FieldFlag => ({
  flag,
  help,
  read: (value) => (value.trim() === '' ? Number.NaN : Number(value)),
});
const list = (flag: string, help: string): FieldFlag => ({
  flag,
  help,
  read: (value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
});

/**
 * A flag for every task input field, so `codeloop task start` can say all that `temporal workflow start --input` can.
 * Typed by the schema's own keys: a field added to the task input and left out here does not compile. `description`
 * is the command's argument, not a flag; `batchContext`, `reportSpend` and `reportOutage` are the batch's to set.
 */
export const TASK_FLAGS: Record<Exclude<TaskField, 'description' | 'batchContext' | 'reportSpend' | 'reportOutage'>, FieldFlag> = {
  workspace: { flag: '--workspace <dir>', help: 'the checkout to work in (a path on the worker host)', read: (dir) => path.resolve(dir) },
  title: text('--title <title>', 'short title (default: the first line of the description)'),
  prd: {
    flag: '--prd <file>',
    help: 'requirements document to include (first 20,000 characters)',
    read: (file) => readInputFile(file, 'the --prd file'),
  },
  maxIterations: number('--max-iterations <n>', 'iteration budget (default 30, scaled by --complexity)'),
  complexity: number('--complexity <1-5>', 'scales the default iteration budget; 3 and up outline first (default 1)'),
  model: text('--model <model>', "model for the agent's turns (default: the worker's CODELOOP_MODEL)"),
  models: {
    flag: '--summary-model <model>',
    help: "model for compaction summaries (default: the worker's CODELOOP_MODEL_SUMMARY)",
    read: (model) => ({ summary: model }),
  },
  blockerTimeout: text('--blocker-timeout <duration>', 'how long a question may wait, e.g. 7d (default: for ever)'),
  onBlockerTimeout: text('--on-blocker-timeout <action>', 'fail (default) or continue on best judgement'),
  approval: text('--approval <mode>', 'which commands wait for approve/deny: never (default), risky, always'),
  maxTotalTokens: number('--max-total-tokens <n>', 'token cap; reaching it asks a human'),
  maxCostUsd: number('--max-cost-usd <usd>', 'cost cap in USD; reaching it asks a human'),
  contextWindow: number('--context-window <tokens>', "context window (default: the model's)"),
  onLoop: text('--on-loop <action>', 'a loop the nudge did not break: blocker (default) or fail'),
  hostTimeout: text('--host-timeout <duration>', "how long work may wait for the workspace host's worker before asking (default 10m)"),
  stallTimeout: text('--stall-timeout <duration>', 'no successful tool call for this long is a stall (default 5m)'),
  onStall: text('--on-stall <action>', 'retry (default), blocker or fail'),
  hostQueue: text('--host-queue <queue>', "pin the workspace tools to a host's queue, codeloop@<host-id>"),
  remote: text('--remote <name>', "fetch --base-branch from this remote (the worker's git credentials) and cut the task's branch from it"),
  baseBranch: text('--base-branch <branch>', "with --remote: the branch to start from (default: the remote's default branch)"),
  network: {
    flag: '--network <off|on|hosts>',
    help: "what the task's commands may reach: off (the default), on (the worker's network), or comma-separated hosts through a proxy, e.g. registry.npmjs.org,pypi.org",
    read: (value) =>
      value === 'off' || value === 'on'
        ? value
        : value
            .split(',')
            .map((host) => host.trim())
            .filter(Boolean),
  },
  env: list('--env <names>', "comma-separated worker variables the task's commands may see, e.g. NPM_TOKEN"),
  gates: text('--gates <mode>', 'no-regressions (default): no worse than at the start; strict: every gate passes'),
  git: text('--git <mode>', 'branch (default): work on codeloop/task/<id> in a worktree, a commit per iteration; in-place'),
  answers: {
    flag: '--answers <file>',
    help: 'YAML or JSON list of { question, answer } from an earlier run, put into the prompt',
    read: (file) => {
      try {
        return parseYaml(readInputFile(file, 'the --answers file'));
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(`the --answers file ${file} does not parse: ${(error as Error).message}`, 2);
      }
    },
  },
};

/** The options of `task start`, one per field, in the order of the table; `--workspace` is required. */
export function taskFlagOptions(): Option[] {
  return Object.entries(TASK_FLAGS).map(([field, { flag, help }]) => new Option(flag, help).makeOptionMandatory(field === 'workspace'));
}

/** The task input fields given on the command line; unset flags are left out, so the schema's defaults apply. */
export function taskFieldsFromFlags(options: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [field, { flag, read }] of Object.entries(TASK_FLAGS)) {
    const value = options[new Option(flag).attributeName()];
    if (typeof value !== 'string') continue;
    fields[field] = read(value);
    if (Number.isNaN(fields[field])) throw new CliError(`${flag.split(' ')[0]} ${value} is not a number`, 2);
  }
  return fields;
}
