import { readFileSync } from 'node:fs';
import { CliError } from './output.js';

/** What a read error means to someone who typed the path. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
};

/**
 * Reads a file named on the command line. A path that cannot be read is a usage error (exit 2) on one line that says
 * why and where a relative path was looked for, never a stack trace.
 */
export function readInputFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = REASONS[code] ?? (error as Error).message;
    throw new CliError(
      `cannot read ${what} ${file}: ${reason}; pass the path of an existing file (a relative path starts from ${process.cwd()})`,
      2,
    );
  }
}
