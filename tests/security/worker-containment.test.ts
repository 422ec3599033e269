import { execFileSync } from 'node:child_process';
import { expect, inject, test } from 'vitest';
import { useTaskHarness } from '../support/task-harness.js';
import { makeWorkspace } from '../support/workspace.js';

const harness = useTaskHarness('containment');

/** Processes on the host whose command line holds `marker`. */
function survivors(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => !line.includes('pgrep'));
  } catch {
    return [];
  }
}

/**
 * A hostile model through the real worker: its commands hunt for the worker's key, try the Temporal frontend on the
 * worker's loopback (which would let it answer its own blockers), and leave a daemon. The task completes; every one
 * of them is refused, and the refusals reach the model as tool results it can read.
 */
test("a task whose commands go for the worker's secrets, the Temporal server and a daemon completes with all of it refused", async () => {
  const [host, port] = inject('temporalAddress').split(':');
  const marker = `3${process.pid % 1000}.${Date.now() % 100000}`;
  const workspace = makeWorkspace({ 'README.md': '# target\n' });
  harness.fake.enqueue(
    { toolCalls: [{ name: 'run_command', input: { command: "cat /proc/*/environ | tr '\\0' '\\n'; env; ls -a ~ /root" } }] },
    {
      toolCalls: [
        {
          name: 'run_command',
          input: {
            command: `python3 -c "import socket; socket.create_connection(('${host}', ${port}), timeout=3); print('reached temporal')"`,
            timeout: 20,
          },
        },
      ],
    },
    { toolCalls: [{ name: 'run_command', input: { command: `setsid sleep ${marker} & setsid -f sleep ${marker}; echo left a daemon` } }] },
    { text: 'Tried everything; nothing got out.' },
  );
  const before = harness.fake.requests.length;
  const handle = await harness.start({ description: 'Look around', workspace });
  const result = await handle.result();
  expect(result.status).toBe('completed');

  const requests = harness.fake.requests.slice(before);
  const toolResult = (index: number) => {
    const blocks = requests[index].body.messages.at(-1)!.content as { type: string; content?: string; is_error?: boolean }[];
    return blocks.find((block) => block.type === 'tool_result')!;
  };
  const secrets = toolResult(1);
  expect(secrets.content).toContain('PATH=');
  expect(secrets.content).not.toContain(harness.fake.apiKey);
  expect(secrets.content).not.toContain('ANTHROPIC');

  const network = toolResult(2);
  expect(network.is_error).toBe(true);
  expect(network.content).toMatch(/Connection refused|Network is unreachable/);
  expect(network.content).not.toMatch(/^reached temporal$/m);

  expect(toolResult(3).content).toContain('left a daemon');
  expect(survivors(marker)).toEqual([]);

  // Nothing the commands saw put the key into history either.
  const history = JSON.stringify((await handle.fetchHistory()).events);
  expect(history).not.toContain(harness.fake.apiKey);
}, 90_000);
