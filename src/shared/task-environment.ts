import { z } from 'zod';
import { builtOnce } from './built-once.js';

/**
 * A service the task's tests need (a database, a cache), from `codeloop.json`: started in the task's sandbox, in its
 * own network namespace, before setup and the model's turns; `ready` is run until it succeeds; stopped with the task.
 */
export const ServiceSchema = builtOnce('task-environment/ServiceSchema', () =>
  z
    .object({
      name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, dots, dashes or underscores'),
      command: z.string().min(1),
      ready: z.string().min(1),
      readyTimeoutSeconds: z.number().int().min(1).max(600).default(60),
    })
    .strict(),
);
export type ServiceSpec = z.output<typeof ServiceSchema>;

/** What `codeloop.json` asks of a task's environment (see `WorkspaceConfigSchema`). */
export interface TaskEnvironmentSpec {
  setup: string[];
  files: string[];
  services: ServiceSpec[];
}

/** A workspace-relative path of a gitignored file to copy from the checkout: no `..`, not absolute, not under `.git`. */
export const NamedFileSchema = builtOnce('task-environment/NamedFileSchema', () =>
  z
    .string()
    .min(1)
    .refine((file) => !file.startsWith('/') && !file.split('/').some((part) => part === '..' || part === '.git' || part === ''), {
      message: 'must be a path inside the checkout, without .. or .git',
    }),
);
