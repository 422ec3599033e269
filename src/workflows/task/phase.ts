import type { TaskPhase } from '../../shared/task-state.js';
import type { ExecutedCall } from '../common/tool-calls.js';

const TEST_COMMAND = /\b(test|tests|pytest|vitest|jest|mocha|unittest|tox)\b/;

function phaseOfCall({ name, input }: ExecutedCall): TaskPhase | undefined {
  switch (name) {
    case 'read_file':
    case 'list_files':
    case 'search_codebase':
    case 'find_symbol':
      return 'exploring';
    case 'create_file':
      return 'creating';
    case 'edit_file':
    case 'delete_file':
    case 'move_file':
      return 'editing';
    case 'run_tests':
      return 'testing';
    case 'run_command':
      return TEST_COMMAND.test((input as { command: string }).command) ? 'testing' : undefined;
    default:
      return undefined;
  }
}

const RANK: TaskPhase[] = ['exploring', 'creating', 'editing', 'testing'];

/** The phase a turn's calls put the task in: the furthest along of them, or `undefined` to keep the current one. */
export function phaseOf(executed: ExecutedCall[]): TaskPhase | undefined {
  const phases = executed.map(phaseOfCall).filter((phase): phase is TaskPhase => phase !== undefined);
  if (phases.length === 0) return undefined;
  return phases.reduce((furthest, phase) => (RANK.indexOf(phase) > RANK.indexOf(furthest) ? phase : furthest));
}
