export { agentTaskWorkflow } from './agent-task.js';
export { batchConductorWorkflow } from './batch-conductor.js';
export { planWorkflow } from './plan-workflow.js';
