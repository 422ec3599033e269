import { terminalSafe } from '../text/terminal-safe.js';

/** Human-readable by default, JSON with `--json`: the convention of the tools around codeloop. */
export interface OutputOptions {
  json?: boolean;
}

/** Human text is terminal-safe (see `terminalSafe`): much of it is the agent's. JSON escapes control characters itself. */
export function emit<T>(options: OutputOptions, data: T, human: (data: T) => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : `${terminalSafe(human(data))}\n`);
}

/** An error the CLI reports as one line and exit code, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Parses input with a workflow's own schema; a bad field is a usage error (exit 2) that names the field. */
export function parseOrExplain<T>(parse: (raw: unknown) => T, raw: unknown): T {
  try {
    return parse(raw);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
}
