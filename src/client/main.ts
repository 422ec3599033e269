import { Command, CommanderError, Option } from 'commander';
import { ConfigError } from '../config.js';
import { UnreachableServerError } from '../connection.js';
import { addClusterCommand } from './cluster-command.js';
import { CliError } from './output.js';
import { OVERLAP_CHOICES } from './schedule-create.js';
import { cliConfig, forgetCliConfig } from './session.js';
import { taskFlagOptions } from './task-flags.js';
import { terminalSafe } from '../text/terminal-safe.js';

const json = () => new Option('--json', 'print JSON for scripts');
const allQueues = () => new Option('--all-queues', 'every task queue in the namespace, not only CODELOOP_TASK_QUEUE (default codeloop)');

/**
 * A command's action, loaded only when that command runs: `codeloop task list` then starts without loading the
 * eval's workers, TypeScript or the payload store, which made every command take a second and a half to start.
 */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return async (...args: unknown[]): Promise<void> => {
    await ((await load())[name] as (...args: unknown[]) => unknown)(...args);
  };
}

export function buildProgram(): Command {
  const program = new Command('codeloop')
    .description('Durable coding agent on Temporal. Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233).')
    .configureOutput({ outputError: (text, write) => write(oneLineError(text)) })
    // Options belong to the command they follow (`plan show ID --json` is show's), which `plan`'s own need.
    .enablePositionalOptions()
    // Settings are checked before any command runs, so a bad one is reported as itself; `--help` needs none.
    .hook('preAction', () => void cliConfig());

  const task = program.command('task').description('start and inspect coding tasks');
  const taskStart = task
    .command('start')
    .description('start a coding task; prints its workflow id and Web UI link')
    .argument('<description>', 'what the agent should do');
  for (const option of taskFlagOptions()) taskStart.addOption(option);
  taskStart
    .option('--id <workflowId>', 'workflow id (default: generated from the title)')
    .addOption(json())
    .action(lazy(() => import('./task-start.js'), 'startTask'));
  task
    .command('status')
    .description("a task's status, phase, iteration, tokens and files changed")
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./task-status.js'), 'showTaskStatus'));
  task
    .command('result')
    .description("a finished task's result; exit code 0 only if it completed")
    .argument('<workflowId>')
    .option('--wait', 'wait for the task to finish')
    .addOption(json())
    .action(lazy(() => import('./task-result.js'), 'showTaskResult'));
  task
    .command('follow')
    .description('a live view until the task ends: phase, iteration, last step, tokens, cost, open blockers')
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./task-follow.js'), 'followTask'));

  task
    .command('list')
    .description('recent tasks, newest first: workflow id, status/phase, age, title')
    .option('--status <status>', 'only tasks with this status: running, blocked, completed, failed, cancelled')
    .option('--limit <n>', 'how many (default 20)')
    .addOption(json())
    .action(lazy(() => import('./task-control.js'), 'listTasks'));
  task
    .command('cancel')
    .description('cancel a task: its running command is killed and it ends cancelled')
    .argument('<workflowId>')
    .option('--wait', 'wait until the task has stopped')
    .addOption(json())
    .action(lazy(() => import('./task-control.js'), 'cancelTask'));
  task
    .command('retry')
    .description('start a task again with the same input and the answers humans gave the earlier run')
    .argument('<workflowId>')
    .option('--id <workflowId>', 'workflow id of the new run (default: <id>-retry-<random>)')
    .addOption(json())
    .action(lazy(() => import('./task-control.js'), 'retryTask'));

  task
    .command('diff')
    .description("the task's changes on its branch, from the commit it was cut from")
    .argument('<workflowId>')
    .option('--stat', 'a diffstat instead of the diff')
    .action(lazy(() => import('./task-git.js'), 'showTaskDiff'));
  task
    .command('apply')
    .description("merge the task's branch into the checkout's current branch (which must have no uncommitted changes)")
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./task-git.js'), 'applyTask'));
  task
    .command('rollback')
    .description("move the task's branch back to its checkpoint of iteration N")
    .argument('<workflowId>')
    .requiredOption('--to <iteration>', 'the iteration whose checkpoint to keep')
    .addOption(json())
    .action(lazy(() => import('./task-git.js'), 'rollbackTask'));
  task
    .command('push')
    .description("push the task's branch to a remote")
    .argument('<workflowId>')
    .requiredOption('--remote <name>', 'the remote to push to, e.g. origin')
    .addOption(json())
    .action(lazy(() => import('./task-git.js'), 'pushTask'));

  program
    .command('report')
    .description('the morning view: tasks and batches completed, failed (why), blocked (on what), tokens and cost')
    .option('--since <duration>', 'how far back to look', '24h')
    .addOption(allQueues())
    .addOption(json())
    .action(lazy(() => import('./report.js'), 'showReport'));

  program
    .command('gc')
    .description('remove merged or abandoned codeloop/* branches and their worktrees; never one with an open pull request')
    .option('--workspace <dir>', 'the repository (default: the current directory)')
    .option('--older-than <duration>', 'unmerged branches untouched this long count as abandoned', '14d')
    .option('--into <branch>', 'the branch merged work is in (default: the checked-out branch)')
    .option('--remote <name>', 'where pull requests are looked for (GITHUB_TOKEN), or pushed branches kept', 'origin')
    .option('--repository <owner/name>', "the forge's repository (default: read from the remote's URL)")
    .option('--dry-run', 'list what would be removed, remove nothing')
    .addOption(json())
    .action(lazy(() => import('./gc.js'), 'collectGarbage'));

  const blockers = program.command('blockers').description('questions the agent is waiting on');
  blockers
    .command('list')
    .description("open blockers of the task queue's workflows: workflow id, blocker id, age, question")
    .addOption(allQueues())
    .addOption(json())
    .action(lazy(() => import('./blockers-list.js'), 'showOpenBlockers'));
  blockers
    .command('answer')
    .description('answer a blocker; prints the acknowledgement (or why it was rejected)')
    .argument('<workflowId>')
    .argument('<answer>')
    .option('--blocker <id>', 'which blocker (needed when more than one is open)')
    .addOption(json())
    .action(lazy(() => import('./blockers-answer.js'), 'answerBlocker'));

  program
    .command('setup')
    .description('for an existing cluster: check the connection, register the search attributes (safe to repeat)')
    .addOption(json())
    .action(lazy(() => import('./setup.js'), 'setupCluster'));
  addClusterCommand(program);

  const plan = program
    .command('plan')
    .description('turn a PRD into a plan of tasks (planWorkflow); waits until the plan is ready for review and prints it')
    .argument('<prd>', 'the requirements document (Markdown or text)')
    .option('--workspace <dir>', 'the repository to plan for (a path on the worker host)')
    .option('--start', 'start the plan as a batch once it is approved')
    .option('--max-parallel <n>', 'tasks the batch runs at once (default 4)')
    .option('--max-tasks <n>', 'most tasks the plan may have (default 12)')
    .option('--model <model>', "the planning model (default: the worker's CODELOOP_MODEL_PLANNING)")
    .option('--max-cost-usd <usd>', "cost cap on planning's own model calls; reaching it asks a human")
    .option('--id <workflowId>', 'workflow id (default: generated from the file name)')
    .option('--no-wait', 'print the workflow id and return at once')
    .addOption(json())
    .enablePositionalOptions()
    .action(async (prd, options) => {
      if (!options.workspace)
        throw new CliError("required option '--workspace <dir>' not specified; add --help to see the command's usage", 2);
      return (await import('./plan.js')).startPlan(prd, options);
    });
  plan
    .command('show')
    .description("a plan's status, its tasks as a tree, its plan file and batch")
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./plan.js'), 'showPlan'));

  program
    .command('codec-server')
    .description("serve Temporal's /encode and /decode for the Web UI and temporal --codec-endpoint, with this machine's payload settings")
    .option('--port <port>', 'port to listen on (127.0.0.1)', '8888')
    .option(
      '--origin <url>',
      'a Web UI origin CORS allows (repeatable; default: CODELOOP_UI_URL, else the UI of the server at TEMPORAL_ADDRESS)',
      (value, all: string[] = []) => [...all, value],
      [],
    )
    .option('--token <token>', 'require Authorization: Bearer <token>')
    .action(lazy(() => import('./codec-server.js'), 'runCodecServer'));

  const evaluate = program
    .command('eval')
    .description(
      'run a suite of cases as real tasks and check each one: a table of pass/fail, iterations, tokens, cost, time, ' +
        'blockers and gate rounds; the results go to <suite dir>/results/ for `eval compare`. Exit code 0 only if every run passed',
    )
    .argument('<suite>', 'the suite file (YAML), e.g. evals/suite.yaml')
    .option('--model <model>', "the model every task uses (default: the worker's CODELOOP_MODEL)")
    .option('--repeat <n>', 'run each case n times, for the spread of the pass rate (default 1)')
    .option('--max-parallel <k>', 'runs at once (default 4)')
    .option('--case <id>', 'only this case; repeat for several', (value, all: string[] = []) => [...all, value])
    .option(
      '--replay <dir>',
      'serve every model turn from the recordings in <dir> (made with CODELOOP_RECORD), with workers in this process; no key needed',
    )
    .option('--label <name>', 'names the run in its results file and in compare (default: the model, or "replay")')
    .option('--out <file>', 'write the results here instead of <suite dir>/results/<time>-<label>.json')
    .option('--workdir <dir>', "where each run's copy of its fixture goes (default: the system's temp directory)")
    .option('--keep', 'keep the copies of runs that passed too (those that did not are always kept)')
    .addOption(json())
    .enablePositionalOptions()
    .action(lazy(() => import('./eval.js'), 'runEvalCommand'));
  evaluate
    .command('compare')
    .description('two eval results side by side (two models, two settings): pass rate, cost per solved case, cases fixed and broken')
    .argument('<a>', 'results file A (the baseline)')
    .argument('<b>', 'results file B')
    .option('--fail-on-regression', 'exit code 1 when a case passed less often in B than in A')
    .addOption(json())
    .action(lazy(() => import('./eval.js'), 'compareEvalCommand'));

  const batch = program.command('batch').description('run a DAG of tasks as one batch');
  batch
    .command('start')
    .description('start a batch from a YAML or JSON file (the batchConductorWorkflow input)')
    .argument('<file>')
    .option('--max-parallel <n>', 'tasks running at once (default 4)')
    .addOption(
      new Option('--on-failure <policy>', 'what a failed task does to the rest').choices(['skip-dependents', 'fail-fast', 'continue']),
    )
    .option('--deadline <duration>', 'stop waiting after this long, e.g. 6h: running tasks are cancelled, pending ones skipped')
    .option('--require-verified', 'a task whose gates could not verify it (unverified) counts as failed and is not merged')
    .option('--id <workflowId>', 'workflow id (default: generated from the file name)')
    .addOption(json())
    .action(lazy(() => import('./batch-start.js'), 'startBatch'));
  batch
    .command('status')
    .description('a tree of tasks with status, duration, tokens and blocked questions')
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./batch-status.js'), 'showBatchStatus'));
  batch
    .command('follow')
    .description('live progress until the batch ends; exit code 0 only if it completed')
    .argument('<workflowId>')
    .addOption(json())
    .action(lazy(() => import('./batch-follow.js'), 'followBatch'));
  batch
    .command('cancel')
    .description('cancel a batch and its running tasks')
    .argument('<workflowId>')
    .option('--wait', 'wait until the batch has stopped')
    .addOption(json())
    .action(lazy(() => import('./batch-cancel.js'), 'cancelBatch'));

  batch
    .command('resume')
    .description('start a new batch on what an ended batch left (from its integration branch), with answers to what it waited on')
    .argument('<workflowId>')
    .option('--answer <task=answer>', "the answer to a task's open question; repeat for several tasks", (value, all: string[] = []) => [
      ...all,
      value,
    ])
    .option('--id <workflowId>', 'workflow id of the new batch (default: <id>-resumed-<random>)')
    .option('--deadline <duration>', "when the new batch stops waiting, e.g. 2h (default: the ended batch's deadline)")
    .addOption(json())
    .action(lazy(() => import('./batch-resume.js'), 'resumeBatch'));
  batch
    .command('push')
    .description("push the batch's integration branch to a remote")
    .argument('<workflowId>')
    .requiredOption('--remote <name>', 'the remote to push to, e.g. origin')
    .addOption(json())
    .action(lazy(() => import('./task-git.js'), 'pushBatch'));

  const schedule = program.command('schedule').description('nightly batches on Temporal Schedules');
  schedule
    .command('create')
    .description('create a schedule whose action starts batchConductorWorkflow with the batch file')
    .argument('<name>', 'schedule id; each run is <name>-<scheduled time>')
    .requiredOption('--cron <expression>', 'when to run, e.g. "0 2 * * *"')
    .requiredOption('--batch <file>', 'batch file (YAML or JSON); use tasksFile in it to read tasks at run time')
    .option('--timezone <tz>', 'IANA time zone for the cron (default UTC)')
    .addOption(new Option('--overlap <policy>', 'when a run is still going').choices([...OVERLAP_CHOICES]).default('skip'))
    .option('--catchup-window <duration>', 'how late a missed run may still start', '1h')
    .option('--deadline <duration>', "when each run stops waiting (default: the batch file's deadline, else 8h)")
    .addOption(json())
    .action(lazy(() => import('./schedule-create.js'), 'createSchedule'));
  schedule
    .command('list')
    .description('all schedules')
    .addOption(json())
    .action(lazy(() => import('./schedule-list.js'), 'listSchedules'));
  schedule
    .command('describe')
    .description('spec, policies, recent and running batches')
    .argument('<name>')
    .addOption(json())
    .action(lazy(() => import('./schedule-describe.js'), 'describeSchedule'));
  schedule
    .command('pause')
    .description('stop taking runs')
    .argument('<name>')
    .option('--note <text>')
    .addOption(json())
    .action(lazy(() => import('./schedule-control.js'), 'pauseSchedule'));
  schedule
    .command('unpause')
    .description('take runs again')
    .argument('<name>')
    .addOption(json())
    .action(lazy(() => import('./schedule-control.js'), 'unpauseSchedule'));
  schedule
    .command('trigger')
    .description("run now, under the schedule's own overlap policy")
    .argument('<name>')
    .addOption(new Option('--overlap <policy>', 'override the overlap policy for this run').choices([...OVERLAP_CHOICES]))
    .addOption(json())
    .action(lazy(() => import('./schedule-control.js'), 'triggerSchedule'));
  schedule
    .command('backfill')
    .description('take the runs due between two times, now')
    .argument('<name>')
    .requiredOption('--start <time>')
    .requiredOption('--end <time>')
    .addOption(new Option('--overlap <policy>').choices([...OVERLAP_CHOICES]))
    .addOption(json())
    .action(lazy(() => import('./schedule-control.js'), 'backfillSchedule'));
  schedule
    .command('delete')
    .description('delete a schedule (running batches go on)')
    .argument('<name>')
    .addOption(json())
    .action(lazy(() => import('./schedule-control.js'), 'deleteSchedule'));
  return program;
}

/**
 * Commander's own errors (an unknown option, a missing argument) on one line like every other CLI error, pointing to
 * `--help` instead of printing the whole help after it. Subcommands inherit this output setting.
 */
function oneLineError(text: string): string {
  const message = text
    .replace(/^error: /, '')
    .trim()
    .replace(/\s*\n\s*/g, ' ');
  return `codeloop: ${message}; add --help to see the command's usage\n`;
}

/**
 * Runs one CLI command. `program` is for a caller that runs commands in a process of its own (the tests do): it gives
 * a program whose commands have `exitOverride()` set, so that commander reports its own errors, `--help` included, by
 * throwing instead of ending that process; their exit code becomes `process.exitCode` as any other error's does.
 */
export async function main(argv = process.argv, program = buildProgram()): Promise<void> {
  // One run, one environment: settings read by an earlier run in this process are read again.
  forgetCliConfig();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message already.
      process.exitCode = error.exitCode;
      return;
    }
    if (error instanceof CliError || error instanceof ConfigError || error instanceof UnreachableServerError) {
      console.error(`codeloop: ${terminalSafe(error.message)}`);
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  }
}
