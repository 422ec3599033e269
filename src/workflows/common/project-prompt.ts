import type { ProjectContext } from '../../shared/project-context.js';

/** The project as the model first sees it: its own instructions, its stack, its file tree or, when large, its code map. */
export function projectLayer(project: ProjectContext): string {
  const parts = ['# Project'];
  for (const { file, content } of project.instructions) parts.push(`## Instructions from ${file}\n${content}`);
  parts.push(`## Tech stack\n${project.techStack.length ? project.techStack.join(', ') : 'not detected (empty or new project)'}`);
  if (project.codeMap) parts.push(`## Code map\n${project.codeMap}`);
  else parts.push(`## Files (up to 3 levels)\n${project.fileTree || '(the workspace is empty)'}`);
  return parts.join('\n\n');
}
