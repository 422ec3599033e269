import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first of `candidates` that is an executable file, then `name` on `PATH`. */
export function findExecutable(name: string, candidates: string[] = [], searchPath = process.env.PATH ?? ''): string | undefined {
  const local = candidates.find(isExecutable);
  if (local) return local;
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}
