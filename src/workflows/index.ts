export { agentTaskWorkflow } from './agent-task.js';
