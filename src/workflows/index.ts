export { agentTaskWorkflow } from './agent-task.js';
export { batchConductorWorkflow } from './batch-conductor.js';
