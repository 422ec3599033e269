import { z } from 'zod';
import { builtOnce } from './built-once.js';
import { objectWithKnownKeys } from './validation.js';

/** A git remote as the worker's git knows it (`origin`), or a URL; never credentials: those stay on the worker. */
export const RemoteSchema = builtOnce('mornings/RemoteSchema', () =>
  z
    .string()
    .min(1)
    .refine((remote) => !/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(remote), {
      message: 'a remote URL must not carry a password or token; give the worker its git credentials instead',
    }),
);

/** A git branch name, as a fetch refspec or a pull request's base takes it. */
export const BranchNameSchema = builtOnce('mornings/BranchNameSchema', () =>
  z.string().regex(/^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/, 'must be a branch name (letters, digits, . _ / -)'),
);

export const PULL_REQUEST_MODES = ['batch', 'task', 'none'] as const;
export const FORGES = ['github', 'gitlab'] as const;

/**
 * `publish`: where the night's work goes when it ends. The branch is pushed to `remote` with the worker's git
 * credentials and a pull request (GitHub) or merge request (GitLab) opened or updated through the forge's API with
 * the worker's token (`GITHUB_TOKEN` / `GITLAB_TOKEN`, or the file their `_FILE` variants name).
 */
export const PublishSchema = builtOnce('mornings/PublishSchema', () =>
  objectWithKnownKeys({
    remote: RemoteSchema,
    /** One pull request for the integration branch, one per completed task's branch, or only the push. */
    pullRequest: z.enum(PULL_REQUEST_MODES).default('batch'),
    draft: z.boolean().default(false),
    forge: z.enum(FORGES).default('github'),
    /** `owner/name` (GitHub) or the project's path (GitLab); by default read from the remote's URL. */
    repository: z
      .string()
      .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)+$/, 'must be owner/name')
      .optional(),
    /** The branch the pull request targets; by default `baseBranch`, else the remote's default branch. */
    base: BranchNameSchema.optional(),
  }),
);

export type Publish = z.output<typeof PublishSchema>;

/** Where a URL is read from: written in the input, or (for a secret like a Slack webhook) an environment variable on the worker. */
const urlOrEnv = {
  url: z.url({ protocol: /^https?$/ }).optional(),
  urlEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
    .optional(),
};

const needsUrl = (target: { url?: string; urlEnv?: string }) => (target.url === undefined) !== (target.urlEnv === undefined);
const URL_MESSAGE = 'give exactly one of url or urlEnv (an environment variable on the worker that holds the URL)';

/**
 * `notify` targets for the morning message: a Slack-compatible incoming webhook, a generic JSON webhook, or e-mail
 * over SMTP (the worker's `CODELOOP_SMTP_URL`).
 */
export const NotifyTargetSchema = builtOnce('mornings/NotifyTargetSchema', () =>
  z.discriminatedUnion('kind', [
    objectWithKnownKeys({ kind: z.literal('slack'), ...urlOrEnv }).refine(needsUrl, URL_MESSAGE),
    objectWithKnownKeys({ kind: z.literal('webhook'), ...urlOrEnv }).refine(needsUrl, URL_MESSAGE),
    objectWithKnownKeys({
      kind: z.literal('email'),
      to: z.array(z.email()).min(1),
      from: z.email().optional(),
    }),
  ]),
);

export type NotifyTarget = z.output<typeof NotifyTargetSchema>;

/**
 * `maxCostUsd`: a number (soft and hard limit alike), or `{ soft, hard }`. At the soft limit no new task starts; at
 * the hard limit running tasks are cancelled.
 */
export const MaxCostSchema = builtOnce('mornings/MaxCostSchema', () =>
  z.union([
    z.number().positive(),
    objectWithKnownKeys({ soft: z.number().positive(), hard: z.number().positive().optional() }).refine(
      (limits) => limits.hard === undefined || limits.hard >= limits.soft,
      'hard must be at least soft',
    ),
  ]),
);

export type MaxCost = z.output<typeof MaxCostSchema>;

/** The soft and hard limits of a `maxCostUsd`; the hard one defaults to the soft one. */
export function costLimits(maxCost: MaxCost): { soft: number; hard: number } {
  return typeof maxCost === 'number' ? { soft: maxCost, hard: maxCost } : { soft: maxCost.soft, hard: maxCost.hard ?? maxCost.soft };
}

/** How a target is named in the batch result: its kind and where it goes, never a secret URL's path. */
export function describeTarget(target: NotifyTarget): string {
  if (target.kind === 'email') return `email to ${target.to.join(', ')}`;
  return target.urlEnv ? `${target.kind} ($${target.urlEnv})` : `${target.kind} ${/^https?:\/\/([^/]+)/.exec(target.url!)?.[1] ?? ''}`;
}

/** What publishing did: the branch pushed and the pull request opened or updated (its number and address). */
export interface PublishedBranch {
  branch: string;
  remote: string;
  taskId?: string;
  pullRequest?: { number: number; url: string; created: boolean };
  error?: string;
}

/** One notify target's delivery: `ok`, or the last error after retries (it never fails the batch). */
export interface NotificationOutcome {
  target: string;
  ok: boolean;
  error?: string;
}
