import type { ProjectContext } from '../../shared/project-context.js';
import type { Network } from '../../shared/network-access.js';
import type { TaskInput } from '../../shared/task-input.js';

/**
 * What is true where the agent works, told rather than left to guess: whether commands reach the network, what is
 * installed there (not what the configuration names), how its tests import the project, which checks decide when
 * it is done, and its iteration budget. Built from the survey of the sandbox taken when the task started.
 */
export function environmentLayer(task: TaskInput, project: ProjectContext): string | undefined {
  const survey = project.sandbox;
  if (!survey) return undefined;
  const parts = ['# Where your commands run'];
  parts.push(networkSection(project.environment?.network ?? task.network));
  if (project.environment?.notes.length) parts.push(`## Environment\n${project.environment.notes.join('\n')}`);
  const tools = survey.tools.map((tool) => `${tool.name} ${tool.version}`).join(', ');
  const lines = [`Installed: ${tools || 'none of the usual interpreters, test runners or linters were found'}.`];
  if (survey.missing.length) lines.push(`Not installed, though the project's configuration names them: ${survey.missing.join(', ')}.`);
  lines.push(...survey.imports.map((line) => `${line.charAt(0).toUpperCase()}${line.slice(1)}.`));
  parts.push(`## Tools\n${lines.join('\n')}`);
  const gates = project.gates ?? [];
  parts.push(
    gates.length
      ? `## Checks when you finish\nWhen you reply without a tool call, these run; the task is done when they pass, or fail no worse than before you started:\n${gates.map((gate) => `- ${gate.name}: \`${gate.command}\``).join('\n')}`
      : '## Checks when you finish\nNone: nothing checks the work when you finish, and the task is reported unverified. Verify it yourself with run_tests or run_command.',
  );
  parts.push(
    `## Budget\n${task.maxIterations} iterations (model turns); one turn may call several tools. A human is asked for more when they run out.`,
  );
  return parts.join('\n\n');
}

function networkSection(network: Network): string {
  if (network === 'on')
    return '## Network: on\nCommands reach what the worker reaches: the internet, package registries, services on its loopback.';
  if (network === 'off')
    return '## Network: off\nCommands reach no network: no internet, no package registry, no other server. Installing packages fails at once; use what is installed.';
  return `## Network: only ${network.join(', ')}\nCommands reach these hosts only, through a proxy (HTTPS_PROXY and HTTP_PROXY are set; package managers use it). Anything else is refused, and a refusal is named in the command's result.`;
}
