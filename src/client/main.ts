import { Command, Option } from 'commander';
import { answerBlocker } from './blockers-answer.js';
import { showOpenBlockers } from './blockers-list.js';
import { CliError } from './output.js';
import { startTask } from './task-start.js';
import { showTaskResult } from './task-result.js';
import { showTaskStatus } from './task-status.js';

const json = () => new Option('--json', 'print JSON for scripts');

export function buildProgram(): Command {
  const program = new Command('codeloop')
    .description('Durable coding agent on Temporal. Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233).')
    .showHelpAfterError();

  const task = program.command('task').description('start and inspect coding tasks');
  task
    .command('start')
    .description('start a coding task; prints its workflow id and Web UI link')
    .argument('<description>', 'what the agent should do')
    .requiredOption('--workspace <dir>', 'the checkout to work in (a path on the worker host)')
    .option('--title <title>', 'short title (default: the first line of the description)')
    .option('--prd <file>', 'requirements document to include (first 5,000 characters)')
    .option('--max-iterations <n>', 'iteration budget (default 30)')
    .option('--model <model>', 'model name (default: the worker\'s CODELOOP_MODEL)')
    .option('--id <workflowId>', 'workflow id (default: generated from the title)')
    .addOption(json())
    .action(startTask);
  task
    .command('status')
    .description("a task's status, phase, iteration, tokens and files changed")
    .argument('<workflowId>')
    .addOption(json())
    .action(showTaskStatus);
  task
    .command('result')
    .description("a finished task's result; exit code 0 only if it completed")
    .argument('<workflowId>')
    .option('--wait', 'wait for the task to finish')
    .addOption(json())
    .action(showTaskResult);

  const blockers = program.command('blockers').description('questions the agent is waiting on');
  blockers
    .command('list')
    .description('open blockers across all workflows: workflow id, blocker id, age, question')
    .addOption(json())
    .action(showOpenBlockers);
  blockers
    .command('answer')
    .description('answer a blocker; prints the acknowledgement (or why it was rejected)')
    .argument('<workflowId>')
    .argument('<answer>')
    .option('--blocker <id>', 'which blocker (needed when more than one is open)')
    .addOption(json())
    .action(answerBlocker);
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`codeloop: ${error.message}`);
      process.exitCode = error.exitCode;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  }
}
