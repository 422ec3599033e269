import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isSharedDocument } from '../../shared/shared-documents.js';
import { tryGit } from './run-git.js';

/**
 * Resolves a merge whose only conflicts are in shared documents (README.md, a changelog) where both sides added
 * text at the same place without changing the same lines: the result keeps both additions, ours first. Several
 * tasks that each add a section to README.md then merge in any order instead of waiting for each other. Returns the
 * files still in conflict: none when the merge could be finished (and was committed), all of them otherwise.
 */
export async function mergeSharedDocuments(cwd: string, conflicts: string[], message: string): Promise<string[]> {
  if (conflicts.length === 0 || !conflicts.every(isSharedDocument)) return conflicts;
  const resolved: Record<string, string> = {};
  for (const file of conflicts) {
    // Rewrites the file with diff3 markers, so each conflict shows what the base had between the two sides.
    if (!(await tryGit(cwd, ['checkout', '--conflict=diff3', '--', file])).ok) return conflicts;
    const text = unionOfAdditions(await readFile(path.join(cwd, file), 'utf8'));
    if (text === undefined) return conflicts;
    resolved[file] = text;
  }
  for (const [file, text] of Object.entries(resolved)) {
    await writeFile(path.join(cwd, file), text);
    await tryGit(cwd, ['add', '--', file]);
  }
  return (await tryGit(cwd, ['commit', '-q', '-m', message])).ok ? [] : conflicts;
}

/**
 * A file with diff3 conflict markers, each conflict replaced by our lines then theirs; `undefined` when a conflict
 * changes lines the base had (both sides edited the same text), which only a human can merge.
 */
export function unionOfAdditions(text: string): string | undefined {
  const out: string[] = [];
  let section: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  let base: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('<<<<<<< ')) {
      section = 'ours';
      base = [];
    } else if (section === 'ours' && line.startsWith('||||||| ')) section = 'base';
    else if ((section === 'ours' || section === 'base') && line === '=======') section = 'theirs';
    else if (section === 'theirs' && line.startsWith('>>>>>>> ')) {
      if (base.some((baseLine) => baseLine.trim() !== '')) return undefined;
      section = 'none';
    } else if (section === 'base') base.push(line);
    else out.push(line);
  }
  return section === 'none' ? out.join('\n') : undefined;
}
