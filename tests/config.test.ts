import './support/quiet-runtime.js';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, test } from 'vitest';
import { createSandbox, SandboxUnavailableError } from '../src/activities/process/sandbox.js';
import { CONFIG_VARIABLES, ConfigError, loadConfig, readModelCredentials, readPayloadKeys } from '../src/config.js';
import { createCodeloopWorkers } from '../src/create-workers.js';
import { connectTemporal } from './support/temporal.js';
import { workerBundlePath } from './support/test-output.js';

const DEFAULTS = {
  temporal: { address: '127.0.0.1:7233', addressSet: false, namespace: 'default', taskQueue: 'codeloop' },
  worker: { hostId: os.hostname(), logLevel: 'WARN', workflowBundle: undefined, worktreesDir: undefined },
  sandbox: { mode: 'on', readOnly: [], packageCache: path.join(os.homedir(), '.cache', 'codeloop', 'packages') },
  // The embedded setup (no TEMPORAL_ADDRESS) keeps large payloads in a file store under the data directory.
  payloads: { store: `file://${path.resolve('.data', 'payloads')}`, storeByDefault: true, encrypted: false },
  model: { models: { default: 'claude-sonnet-5-5', planning: 'claude-opus-5-5', summary: 'claude-haiku-5' } },
  cli: { uiUrl: undefined },
  server: { dataDir: path.resolve('.data'), port: 7233, uiPort: 8233, temporalCliPath: undefined },
  telemetry: { metricsAddress: undefined, traces: undefined },
};

/** The `ConfigError` that `env` gets; fails the test if there is none. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  test('nothing set: every default', () => {
    expect(loadConfig({})).toEqual(DEFAULTS);
  });

  test('an empty value is unset, for every variable', () => {
    const empty = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, '']));
    expect(loadConfig(empty)).toEqual(DEFAULTS);
    expect(readModelCredentials(empty)).toEqual({ apiKey: undefined, baseURL: undefined });
  });

  test('every variable set: parsed, case-folded, split and trimmed of a trailing slash', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'agents',
      CODELOOP_TASK_QUEUE: 'nightly',
      CODELOOP_HOST_ID: 'host-a',
      CODELOOP_LOG_LEVEL: 'debug',
      CODELOOP_WORKFLOW_BUNDLE: '/srv/bundle.js',
      CODELOOP_WORKTREES_DIR: '/srv/worktrees',
      CODELOOP_SANDBOX: 'OFF',
      CODELOOP_SANDBOX_READONLY: '/opt/a::/opt/b',
      CODELOOP_PACKAGE_CACHE: '/srv/package-cache',
      CODELOOP_MODEL: 'claude-test',
      CODELOOP_MODEL_PLANNING: 'claude-plan',
      CODELOOP_MODEL_SUMMARY: 'claude-small',
      CODELOOP_PAYLOAD_STORE: 'postgres://codeloop:secret@db:5432/temporal',
      CODELOOP_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      CODELOOP_UI_URL: 'https://temporal.example.com/',
      CODELOOP_DATA_DIR: '/var/lib/codeloop',
      CODELOOP_TEMPORAL_PORT: '17233',
      CODELOOP_UI_PORT: '18233',
      TEMPORAL_CLI_PATH: '/usr/local/bin/temporal',
      CODELOOP_METRICS_ADDRESS: '0.0.0.0:9464',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
      OTEL_SERVICE_NAME: 'codeloop-eu',
    });
    expect(config).toEqual({
      temporal: { address: 'temporal.internal:7233', addressSet: true, namespace: 'agents', taskQueue: 'nightly' },
      worker: { hostId: 'host-a', logLevel: 'DEBUG', workflowBundle: '/srv/bundle.js', worktreesDir: '/srv/worktrees' },
      sandbox: { mode: 'off', readOnly: ['/opt/a', '/opt/b'], packageCache: '/srv/package-cache' },
      model: { models: { default: 'claude-test', planning: 'claude-plan', summary: 'claude-small' } },
      payloads: { store: 'postgres://codeloop:secret@db:5432/temporal', encrypted: true },
      cli: { uiUrl: 'https://temporal.example.com' },
      server: { dataDir: '/var/lib/codeloop', port: 17233, uiPort: 18233, temporalCliPath: '/usr/local/bin/temporal' },
      telemetry: {
        metricsAddress: '0.0.0.0:9464',
        traces: { endpoint: 'http://otel-collector:4318', protocol: 'http/json', serviceName: 'codeloop-eu' },
      },
    });
  });

  test('traces: OTLP over HTTP with protobuf, as codeloop-worker, once an endpoint is set', () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: 'unused' }).telemetry.traces).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com' }).telemetry.traces).toEqual({
      endpoint: 'https://otlp.example.com',
      protocol: 'http/protobuf',
      serviceName: 'codeloop-worker',
    });
  });

  test('the metrics addresses the Prometheus exporter can bind', () => {
    for (const address of ['0.0.0.0:9464', '127.0.0.1:1', '[::]:9464', '[::1]:65535']) {
      expect(loadConfig({ CODELOOP_METRICS_ADDRESS: address }).telemetry.metricsAddress).toBe(address);
    }
  });

  test('the addresses the Temporal SDK accepts', () => {
    for (const address of ['localhost', 'temporal:7233', '10.0.0.5:7233', '[::1]:7233', 'my-ns.tmprl.cloud:7233']) {
      expect(loadConfig({ TEMPORAL_ADDRESS: address }).temporal.address).toBe(address);
    }
  });

  test('frozen all the way down', () => {
    const config = loadConfig({ CODELOOP_SANDBOX_READONLY: '/opt/a' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => ((config.temporal as { taskQueue: string }).taskQueue = 'other')).toThrow(TypeError);
    expect(() => (config.sandbox.readOnly as string[]).push('/opt/b')).toThrow(TypeError);
  });

  test('the model key is not a setting: only readModelCredentials has it', () => {
    const env = { ANTHROPIC_API_KEY: 'sk-secret', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999' };
    expect(JSON.stringify(loadConfig(env))).not.toContain('sk-secret');
    expect(readModelCredentials(env)).toEqual({ apiKey: 'sk-secret', baseURL: 'http://127.0.0.1:9999' });
  });
});

describe('invalid values: one line naming the variable, what it must be and what it got', () => {
  const ADDRESS = 'host:port without a scheme, e.g. 127.0.0.1:7233';
  const URL_LIKE = (example: string) => `an http or https URL, e.g. ${example}`;
  const PORT = (example: number) => `a TCP port from 1 to 65535, e.g. ${example}`;
  const METRICS_ADDRESS = 'an IP address and port to serve Prometheus metrics on, e.g. 0.0.0.0:9464 or 127.0.0.1:9464';
  test.each([
    ['TEMPORAL_ADDRESS', 'http://temporal:7233', ADDRESS],
    ['TEMPORAL_ADDRESS', 'temporal 7233', ADDRESS],
    ['CODELOOP_LOG_LEVEL', 'loud', 'one of TRACE, DEBUG, INFO, WARN, ERROR, e.g. INFO'],
    ['CODELOOP_SANDBOX', 'maybe', '"on" or "off" ("off" runs the agent\'s commands unsandboxed)'],
    ['CODELOOP_SANDBOX_READONLY', '/opt/a:tools', 'absolute directories separated by ":", e.g. /opt/toolchain:/srv/cache'],
    ['ANTHROPIC_BASE_URL', 'api.example.com', URL_LIKE('https://api.anthropic.com')],
    ['CODELOOP_UI_URL', 'ftp://ui.example.com', URL_LIKE('http://localhost:8233')],
    ['CODELOOP_TEMPORAL_PORT', 'abc', PORT(7233)],
    ['CODELOOP_TEMPORAL_PORT', '0', PORT(7233)],
    ['CODELOOP_UI_PORT', '70000', PORT(8233)],
    ['CODELOOP_UI_PORT', '8233.5', PORT(8233)],
    ['CODELOOP_METRICS_ADDRESS', 'localhost:9464', METRICS_ADDRESS],
    ['CODELOOP_METRICS_ADDRESS', '9464', METRICS_ADDRESS],
    ['CODELOOP_METRICS_ADDRESS', '0.0.0.0:70000', METRICS_ADDRESS],
    ['CODELOOP_METRICS_ADDRESS', '::1:9464', METRICS_ADDRESS],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'otel-collector:4318', URL_LIKE('http://otel-collector:4318')],
    [
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'grpc',
      "http/protobuf or http/json (traces go over OTLP/HTTP: point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's port 4318)",
    ],
    [
      'CODELOOP_PAYLOAD_STORE',
      's3://bucket',
      'file (under the data directory), file:///absolute/dir, postgres://user:password@host:port/database, or off',
    ],
  ])('%s=%s', (name, value, what) => {
    expect(configError({ [name]: value }).message).toBe(`${name} must be ${what}; got "${value}"`);
  });

  test('several at once: all of them, still on one line', () => {
    const { message } = configError({ CODELOOP_TEMPORAL_PORT: 'abc', CODELOOP_LOG_LEVEL: 'loud' });
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^CODELOOP_LOG_LEVEL must be .*; got "loud"; CODELOOP_TEMPORAL_PORT must be .*; got "abc"$/);
  });

  test('a bad base URL is refused when the credentials are read, too', () => {
    expect(() => readModelCredentials({ ANTHROPIC_BASE_URL: 'nope' })).toThrow(ConfigError);
  });
});

describe('the settings in use', () => {
  test('the sandbox takes CODELOOP_SANDBOX from the config: empty is on, OFF is off', () => {
    expect(() => createSandbox({ PATH: '/nonexistent', CODELOOP_SANDBOX: '' })).toThrow(SandboxUnavailableError);
    expect(createSandbox({ PATH: '/nonexistent', CODELOOP_SANDBOX: 'OFF' }).mode).toBe('off');
  });

  test('an empty CODELOOP_TASK_QUEUE and CODELOOP_HOST_ID mean the defaults to the worker, as to the CLI', async () => {
    const temporal = await connectTemporal();
    try {
      const workers = await createCodeloopWorkers({
        connection: temporal.nativeConnection,
        workflowBundlePath: inject('workflowBundlePath'),
        env: { CODELOOP_TASK_QUEUE: '', CODELOOP_HOST_ID: '', TEMPORAL_NAMESPACE: '', CODELOOP_SANDBOX: 'off' },
      });
      expect(workers.taskQueue).toBe('codeloop');
      expect(workers.hostQueue).toBe(`codeloop@${os.hostname()}`);
      // A worker holds its connection until it has run; run it for no time so the connection can close.
      const running = workers.run();
      workers.shutdown();
      await running;
    } finally {
      await temporal.close();
    }
  });
});

describe('entry points: a bad value is one line on stderr and exit code 1, before anything starts', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv) =>
    promisify(execFile)(process.execPath, args, { env: { ...process.env, ...env }, timeout: 60_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  // The worker compiled for the run: the same checks for half the CPU of going through tsx, whose entry point the
  // sandbox test runs. `npm start` is not compiled (its bundle would hold the worker's entry point too).
  const tsx = (file: string) => ['--import', 'tsx', path.resolve(file)];

  test('the worker', async () => {
    const result = await run([workerBundlePath], { CODELOOP_LOG_LEVEL: 'loud' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'CODELOOP_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, e.g. INFO; got "loud"',
    ]);
  });

  test('the CLI, though --help still works', async () => {
    const env = { CODELOOP_UI_URL: 'localhost:8233' };
    const result = await run([path.resolve('bin/codeloop.js'), 'task', 'status', 'some-task'], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'codeloop: CODELOOP_UI_URL must be an http or https URL, e.g. http://localhost:8233; got "localhost:8233"',
    ]);
    expect((await run([path.resolve('bin/codeloop.js'), '--help'], env)).code).toBe(0);
  });

  test('the worker, when its metrics address is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(taken.address() as net.AddressInfo).port}`;
    try {
      const result = await run([workerBundlePath], { CODELOOP_METRICS_ADDRESS: address });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^CODELOOP_METRICS_ADDRESS ${address} cannot be served \\(.*in use.*\\); set a free port, or unset it`),
        ),
      ]);
    } finally {
      taken.close();
    }
  });

  test('npm start', async () => {
    const result = await run(tsx('src/server/start.ts'), { CODELOOP_TEMPORAL_PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'codeloop: CODELOOP_TEMPORAL_PORT must be a TCP port from 1 to 65535, e.g. 7233; got "abc"',
    ]);
  });
});

test("the Configuration page's table lists every variable codeloop reads, and no other", () => {
  const table = readFileSync('docs/configuration.md', 'utf8');
  const listed = table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]));
  expect([...listed].sort()).toEqual([...CONFIG_VARIABLES].sort());
});

test('CODELOOP_PAYLOAD_KEYS: a bad key is named without echoing it; file means the data directory', () => {
  const secret = Buffer.alloc(20, 9).toString('base64');
  const error = configError({ CODELOOP_PAYLOAD_KEYS: `k1:${secret}` });
  expect(error.message).toBe(
    'CODELOOP_PAYLOAD_KEYS is not usable: key k1 is 20 bytes; AES-256 needs 32 (make one with: openssl rand -base64 32)',
  );
  expect(error.message).not.toContain(secret);
  expect(loadConfig({ CODELOOP_PAYLOAD_STORE: 'file', CODELOOP_DATA_DIR: '/srv/codeloop' }).payloads.store).toBe(
    'file:///srv/codeloop/payloads',
  );
});

test('CODELOOP_PAYLOAD_KEYS_FILE: keys from a mounted file, one per line; an unreadable one and both at once are named', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-keys-'));
  const file = path.join(dir, 'keys');
  writeFileSync(file, `k2:${Buffer.alloc(32, 2).toString('base64')}\nk1:${Buffer.alloc(32, 1).toString('base64')}\n`);
  expect(loadConfig({ CODELOOP_PAYLOAD_KEYS_FILE: file }).payloads.encrypted).toBe(true);
  expect(readPayloadKeys({ CODELOOP_PAYLOAD_KEYS_FILE: file })?.currentId).toBe('k2');
  expect(configError({ CODELOOP_PAYLOAD_KEYS_FILE: path.join(dir, 'missing') }).message).toBe(
    `CODELOOP_PAYLOAD_KEYS_FILE is not usable: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
  );
  expect(() => readPayloadKeys({ CODELOOP_PAYLOAD_KEYS_FILE: file, CODELOOP_PAYLOAD_KEYS: 'k:x' })).toThrow(
    'CODELOOP_PAYLOAD_KEYS and CODELOOP_PAYLOAD_KEYS_FILE are both set; set one',
  );
});

test("the embedded server's address keeps the embedded store; any other server has none unless set", () => {
  const store = (env: NodeJS.ProcessEnv) => loadConfig({ CODELOOP_DATA_DIR: '/srv/codeloop', ...env }).payloads.store;
  expect(store({})).toBe('file:///srv/codeloop/payloads');
  expect(store({ TEMPORAL_ADDRESS: '127.0.0.1:7233' })).toBe('file:///srv/codeloop/payloads');
  expect(store({ TEMPORAL_ADDRESS: 'localhost:7391', CODELOOP_TEMPORAL_PORT: '7391' })).toBe('file:///srv/codeloop/payloads');
  expect(store({ TEMPORAL_ADDRESS: '127.0.0.1:7391' })).toBeUndefined();
  expect(store({ TEMPORAL_ADDRESS: 'temporal.internal:7233' })).toBeUndefined();
  expect(store({ TEMPORAL_ADDRESS: 'temporal.internal:7233', CODELOOP_PAYLOAD_STORE: 'file' })).toBe('file:///srv/codeloop/payloads');
});
