import { defineQuery } from '@temporalio/workflow';
import type { TaskStateSnapshot } from '../shared/task-state.js';

/** `getState`: status, phase, iteration, open blockers and usage of a task. */
export const getStateQuery = defineQuery<TaskStateSnapshot>('getState');
