import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { SandboxMode } from './shared/command-access.js';
import type { ModelPurpose } from './shared/conversation.js';
import { ConfigError } from './config-error.js';
import { Keyring } from './payloads/keyring.js';
import { readKeyFile, type PayloadConfig } from './payloads/payload-config.js';
import { projectRoot } from './project-root.js';
import { DEFAULT_MODEL, DEFAULT_PLANNING_MODEL, DEFAULT_SUMMARY_MODEL, DEFAULT_TASK_QUEUE } from './shared/constants.js';

/** Where the worker, the CLI and `npm start` find Temporal unless `TEMPORAL_ADDRESS` says otherwise. */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/** The Temporal worker runtime's log levels, most verbose first. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export { ConfigError } from './config-error.js';
export { readPayloadKeys, type PayloadConfig } from './payloads/payload-config.js';

/** What a refused value is told: the shape it must have, an example, and what it was. The variable's name goes first. */
const must = (what: string) => ({ error: (issue: { input?: unknown }) => `must be ${what}; got ${JSON.stringify(issue.input)}` });

/** One of a few words, in any case: `CODELOOP_SANDBOX=OFF` means off. */
function oneOf<const T extends string>(choices: readonly T[], normalize: (text: string) => string, what: string) {
  return z
    .string()
    .refine((text) => (choices as readonly string[]).includes(normalize(text)), must(what))
    .transform((text) => normalize(text) as T);
}

const port = (example: number) =>
  z
    .string()
    .refine(
      (text) => /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65_535,
      must(`a TCP port from 1 to 65535, e.g. ${example}`),
    )
    .transform(Number);

const httpUrl = (example: string) => z.string().refine(isHttpUrl, must(`an http or https URL, e.g. ${example}`));

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol);
}

/** `ip:port` or `[ipv6]:port`: the SDK's Prometheus exporter binds a socket address, not a host name. */
function isSocketAddress(text: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return false;
  const port = Number(match[3]);
  return port >= 1 && port <= 65_535 && (match[1] ? isIP(match[1]) === 6 : isIP(match[2]) === 4);
}

/** The OTLP encodings the worker's trace exporter speaks; both go over HTTP (the collector's port 4318). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** A host, `[IPv6]` or either with `:port`, without a scheme: what the Temporal SDK's connection accepts. */
const TEMPORAL_ADDRESS_FORMAT = /^(\[[0-9a-fA-F.:]+\]|[^\s:/[\]]+)(:\d{1,5})?$/;

/**
 * Every variable codeloop reads, with its rule and default. The Configuration page (docs/configuration.md) lists the same names
 * and defaults.
 */
const VariablesSchema = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .regex(TEMPORAL_ADDRESS_FORMAT, must(`host:port without a scheme, e.g. ${DEFAULT_TEMPORAL_ADDRESS}`))
    .optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  CODELOOP_TASK_QUEUE: z.string().default(DEFAULT_TASK_QUEUE),
  CODELOOP_HOST_ID: z.string().default(() => os.hostname()),
  CODELOOP_LOG_LEVEL: oneOf(LOG_LEVELS, (text) => text.toUpperCase(), `one of ${LOG_LEVELS.join(', ')}, e.g. INFO`).default('WARN'),
  CODELOOP_WORKFLOW_BUNDLE: z.string().optional(),
  CODELOOP_WORKTREES_DIR: z.string().optional(),
  CODELOOP_RECORD: z
    .string()
    .transform((dir) => path.resolve(dir))
    .optional(),
  CODELOOP_SANDBOX: oneOf<SandboxMode>(
    ['on', 'off'],
    (text) => text.toLowerCase(),
    '"on" or "off" ("off" runs the agent\'s commands unsandboxed)',
  ).default('on'),
  CODELOOP_SANDBOX_READONLY: z
    .string()
    .refine(
      (text) => directories(text).every((dir) => path.isAbsolute(dir)),
      must('absolute directories separated by ":", e.g. /opt/toolchain:/srv/cache'),
    )
    .transform(directories)
    .default([]),
  CODELOOP_PACKAGE_CACHE: z
    .string()
    .refine((dir) => path.isAbsolute(dir) || dir === 'off', must('an absolute directory, or "off"'))
    .optional(),
  CODELOOP_MODEL: z.string().default(DEFAULT_MODEL),
  CODELOOP_MODEL_PLANNING: z.string().default(DEFAULT_PLANNING_MODEL),
  CODELOOP_MODEL_SUMMARY: z.string().default(DEFAULT_SUMMARY_MODEL),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: httpUrl('https://api.anthropic.com').optional(),
  CODELOOP_PAYLOAD_STORE: z
    .string()
    .refine(
      (text) => text === 'off' || text === 'file' || /^file:\/\/\//.test(text) || /^postgres(ql)?:\/\//.test(text),
      must('file (under the data directory), file:///absolute/dir, postgres://user:password@host:port/database, or off'),
    )
    .optional(),
  CODELOOP_PAYLOAD_KEYS: z
    .string()
    .refine((text) => keyringProblem(text) === undefined, { error: (issue) => `is not usable: ${keyringProblem(String(issue.input))}` })
    .optional(),
  /** The same keys from a file (a secret mounted by the platform), one `id:base64` per line or comma-separated. */
  CODELOOP_PAYLOAD_KEYS_FILE: z
    .string()
    .refine((file) => keyFileProblem(file) === undefined, { error: (issue) => `is not usable: ${keyFileProblem(String(issue.input))}` })
    .optional(),
  CODELOOP_UI_URL: httpUrl('http://localhost:8233')
    .transform((url) => url.replace(/\/$/, ''))
    .optional(),
  CODELOOP_DATA_DIR: z.string().default(path.join(projectRoot, '.data')),
  CODELOOP_TEMPORAL_PORT: port(7233).default(7233),
  CODELOOP_UI_PORT: port(8233).default(8233),
  TEMPORAL_CLI_PATH: z.string().optional(),
  CODELOOP_METRICS_ADDRESS: z
    .string()
    .refine(isSocketAddress, must('an IP address and port to serve Prometheus metrics on, e.g. 0.0.0.0:9464 or 127.0.0.1:9464'))
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('http://otel-collector:4318').optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(
    OTLP_PROTOCOLS,
    (text) => text.toLowerCase(),
    "http/protobuf or http/json (traces go over OTLP/HTTP: point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's port 4318)",
  ).default('http/protobuf'),
  OTEL_SERVICE_NAME: z.string().default('codeloop-worker'),
});

/** The names `loadConfig` reads; docs/configuration.md lists the same. */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(VariablesSchema.shape));

function directories(list: string): string[] {
  return list.split(':').filter(Boolean);
}

/** The Temporal server and queue the CLI and the worker share. */
export interface TemporalConfig {
  /** `TEMPORAL_ADDRESS`, the frontend's gRPC address. */
  address: string;
  /** Whether `TEMPORAL_ADDRESS` was given: `npm start` then runs only a worker, against that server. */
  addressSet: boolean;
  /** `TEMPORAL_NAMESPACE`. */
  namespace: string;
  /** `CODELOOP_TASK_QUEUE`: where the CLI starts workflows and the worker polls. */
  taskQueue: string;
}

export interface WorkerSettings {
  /** `CODELOOP_HOST_ID`: names the host's own queue `<task-queue>@<host-id>`; must stay the same across restarts. */
  hostId: string;
  /** `CODELOOP_LOG_LEVEL`, upper case. */
  logLevel: LogLevel;
  /** `CODELOOP_WORKFLOW_BUNDLE`: a prebuilt workflow bundle, so the worker skips bundling at start. */
  workflowBundle?: string;
  /** `CODELOOP_WORKTREES_DIR`: where batches' git worktrees go (default: beside the repository). */
  worktreesDir?: string;
  /**
   * `CODELOOP_RECORD`, made absolute: a directory where every model request and response is appended, one file per
   * workflow id, so a session can be replayed with no key (`codeloop eval --replay`). Unset records nothing.
   */
  recordDir?: string;
}

export interface SandboxConfig {
  /** `CODELOOP_SANDBOX`: `off` is the only way to run the agent's commands without the sandbox. */
  mode: SandboxMode;
  /** `CODELOOP_SANDBOX_READONLY`: more directories the sandbox binds read-only. */
  readOnly: readonly string[];
  /**
   * `CODELOOP_PACKAGE_CACHE`: where npm's, pip's and uv's caches are kept for the sandbox, one set per repository, so a
   * second task's installs reuse the first's downloads; `off` for none. Default `~/.cache/codeloop/packages`.
   */
  packageCache?: string;
}

export interface ModelConfig {
  /**
   * The model a call uses when its input names none, by purpose: `CODELOOP_MODEL` (the agent's turns),
   * `CODELOOP_MODEL_PLANNING`, `CODELOOP_MODEL_SUMMARY`. The credentials are not here: see `readModelCredentials`.
   */
  models: Record<ModelPurpose, string>;
}

export interface CliConfig {
  /**
   * `CODELOOP_UI_URL`, without a trailing slash: the Web UI the CLI's links point to. Unset, the CLI finds the UI of
   * the server it talks to (see `webUiBase`).
   */
  uiUrl?: string;
}

/** `npm start`'s embedded Temporal dev server. */
export interface ServerConfig {
  /** `CODELOOP_DATA_DIR`: the SQLite file lives here. */
  dataDir: string;
  /** `CODELOOP_TEMPORAL_PORT`: the dev server's gRPC port. */
  port: number;
  /** `CODELOOP_UI_PORT`: the dev server's Web UI port. */
  uiPort: number;
  /** `TEMPORAL_CLI_PATH`: the `temporal` binary to use before looking on `PATH`. */
  temporalCliPath?: string;
}

/** What the worker tells operators: Prometheus metrics and OpenTelemetry traces, each off unless its variable is set. */
export interface TelemetryConfig {
  /** `CODELOOP_METRICS_ADDRESS`: where the worker serves `/metrics` (the SDK's figures and codeloop's own). */
  metricsAddress?: string;
  /** Set when `OTEL_EXPORTER_OTLP_ENDPOINT` is: spans of workflows, activities and model calls go there. */
  traces?: {
    /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL; spans go to its `/v1/traces`. */
    endpoint: string;
    /** `OTEL_EXPORTER_OTLP_PROTOCOL`, default `http/protobuf`. */
    protocol: OtlpProtocol;
    /** `OTEL_SERVICE_NAME`, default `codeloop-worker`. */
    serviceName: string;
  };
}

export interface CodeloopConfig {
  temporal: TemporalConfig;
  worker: WorkerSettings;
  sandbox: SandboxConfig;
  model: ModelConfig;
  payloads: PayloadConfig;
  cli: CliConfig;
  server: ServerConfig;
  telemetry: TelemetryConfig;
}

/** What the model client is built with. Kept out of `CodeloopConfig`, which start-up messages may print. */
export interface ModelCredentials {
  apiKey?: string;
  baseURL?: string;
}

/**
 * codeloop's configuration, read from the environment once by each entry point (worker, CLI, `npm start`) and
 * passed on. An empty variable counts as unset, the same for every name: `CODELOOP_TASK_QUEUE=` in a compose file
 * means the default queue, not a queue named "". A value that cannot be used throws a `ConfigError` naming every such
 * variable, before anything connects or starts.
 *
 * Not configuration, and so not here: `PATH` and `HOME`, which say where programs and the home directory are, and
 * the variables the command sandbox copies from the worker's environment by name (see `commandEnv`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<CodeloopConfig> {
  const variables = parseVariables(VariablesSchema, env);
  return deepFreeze({
    temporal: {
      address: variables.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
      addressSet: variables.TEMPORAL_ADDRESS !== undefined,
      namespace: variables.TEMPORAL_NAMESPACE,
      taskQueue: variables.CODELOOP_TASK_QUEUE,
    },
    worker: {
      hostId: variables.CODELOOP_HOST_ID,
      logLevel: variables.CODELOOP_LOG_LEVEL,
      workflowBundle: variables.CODELOOP_WORKFLOW_BUNDLE,
      worktreesDir: variables.CODELOOP_WORKTREES_DIR,
      recordDir: variables.CODELOOP_RECORD,
    },
    sandbox: {
      mode: variables.CODELOOP_SANDBOX,
      readOnly: variables.CODELOOP_SANDBOX_READONLY,
      packageCache:
        variables.CODELOOP_PACKAGE_CACHE === 'off'
          ? undefined
          : (variables.CODELOOP_PACKAGE_CACHE ?? path.join(os.homedir(), '.cache', 'codeloop', 'packages')),
    },
    model: {
      models: { default: variables.CODELOOP_MODEL, planning: variables.CODELOOP_MODEL_PLANNING, summary: variables.CODELOOP_MODEL_SUMMARY },
    },
    payloads: {
      ...payloadStore(
        variables.CODELOOP_PAYLOAD_STORE,
        variables.CODELOOP_DATA_DIR,
        isEmbeddedServer(variables.TEMPORAL_ADDRESS, variables.CODELOOP_TEMPORAL_PORT),
      ),
      encrypted: variables.CODELOOP_PAYLOAD_KEYS !== undefined || variables.CODELOOP_PAYLOAD_KEYS_FILE !== undefined,
    },
    cli: { uiUrl: variables.CODELOOP_UI_URL },
    telemetry: {
      metricsAddress: variables.CODELOOP_METRICS_ADDRESS,
      traces: variables.OTEL_EXPORTER_OTLP_ENDPOINT
        ? {
            endpoint: variables.OTEL_EXPORTER_OTLP_ENDPOINT,
            protocol: variables.OTEL_EXPORTER_OTLP_PROTOCOL,
            serviceName: variables.OTEL_SERVICE_NAME,
          }
        : undefined,
    },
    server: {
      dataDir: variables.CODELOOP_DATA_DIR,
      port: variables.CODELOOP_TEMPORAL_PORT,
      uiPort: variables.CODELOOP_UI_PORT,
      temporalCliPath: variables.TEMPORAL_CLI_PATH,
    },
  });
}

/** The payload store: as set, or, for the embedded setup, `file` under the data directory (see `PayloadConfig`). */
function payloadStore(setting: string | undefined, dataDir: string, embedded: boolean): Pick<PayloadConfig, 'store' | 'storeByDefault'> {
  const file = `file://${path.join(dataDir, 'payloads')}`;
  if (setting === 'off') return { store: undefined };
  if (setting === 'file') return { store: file };
  if (setting !== undefined) return { store: setting };
  return embedded ? { store: file, storeByDefault: true } : { store: undefined };
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether the server is `npm start`'s own: no `TEMPORAL_ADDRESS`, or one naming loopback at `CODELOOP_TEMPORAL_PORT`
 * (a CLI pointed at an embedded server on another port sets both, and must share its store to read its payloads).
 */
function isEmbeddedServer(address: string | undefined, embeddedPort: number): boolean {
  if (address === undefined) return true;
  const separator = address.lastIndexOf(':');
  return separator > 0 && LOOPBACK_NAMES.has(address.slice(0, separator)) && Number(address.slice(separator + 1)) === embeddedPort;
}

function keyFileProblem(file: string): string | undefined {
  try {
    return keyringProblem(readKeyFile(file));
  } catch (error) {
    return `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

function keyringProblem(text: string): string | undefined {
  try {
    Keyring.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const CredentialsSchema = VariablesSchema.pick({ ANTHROPIC_API_KEY: true, ANTHROPIC_BASE_URL: true });

/**
 * `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`, the SDK's own variables, by the same rules as `loadConfig`. The
 * worker reads them at each model call rather than once, so the key never sits in a settings object and a task
 * blocked on a missing key can go on once it is set.
 */
export function readModelCredentials(env: NodeJS.ProcessEnv = process.env): ModelCredentials {
  const variables = parseVariables(CredentialsSchema, env);
  return { apiKey: variables.ANTHROPIC_API_KEY, baseURL: variables.ANTHROPIC_BASE_URL };
}

function parseVariables<T extends z.ZodObject>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const given = Object.fromEntries(Object.keys(schema.shape).flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const parsed = schema.safeParse(given);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('; '));
  return parsed.data;
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const field of Object.values(value)) if (typeof field === 'object' && field !== null) deepFreeze(field);
  return Object.freeze(value);
}
