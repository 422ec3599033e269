import { z } from 'zod';
import { DEFAULT_MAX_ITERATIONS } from './constants.js';
import { parseOrFail } from './validation.js';

/**
 * `agentTaskWorkflow`'s input: one JSON object, so `temporal workflow start --input '{…}'` works as written.
 * The CLI parses it with this schema before starting, and the workflow parses it again first thing.
 */
export const TaskInputSchema = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().min(1, 'must describe the task'),
    workspace: z.string().startsWith('/', 'must be an absolute path on the worker host'),
    prd: z.string().optional(),
    maxIterations: z.number().int().min(1).max(1000).default(DEFAULT_MAX_ITERATIONS),
    model: z.string().min(1).optional(),
  })
  .transform((input) => ({ ...input, title: input.title ?? titleFrom(input.description) }));

export type TaskInput = z.output<typeof TaskInputSchema>;
/** What callers may send: defaults filled in by parsing. */
export type TaskInputRaw = z.input<typeof TaskInputSchema>;

export function parseTaskInput(raw: unknown): TaskInput {
  return parseOrFail(TaskInputSchema, raw, 'task input');
}

function titleFrom(description: string): string {
  const firstLine = description.split('\n')[0].trim();
  return firstLine.length <= 72 ? firstLine : `${firstLine.slice(0, 71)}…`;
}
