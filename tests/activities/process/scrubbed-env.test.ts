import { expect, test } from 'vitest';
import { scrubbedEnv } from '../../../src/activities/process/scrubbed-env.js';

test("the agent's shell never sees the worker's secrets", () => {
  const env = scrubbedEnv({
    PATH: '/usr/bin',
    HOME: '/home/a',
    ANTHROPIC_API_KEY: 'sk-secret',
    ANTHROPIC_BASE_URL: 'http://x',
    GITHUB_TOKEN: 'ghp',
    AWS_ACCESS_KEY_ID: 'a',
    MY_SERVICE_PASSWORD: 'p',
    DATABASE_SECRET: 's',
    TEMPORAL_ADDRESS: 'x:7233',
    LANG: 'C.UTF-8',
  });
  expect(env).toMatchObject({ PATH: '/usr/bin', HOME: '/home/a', LANG: 'C.UTF-8', CI: 'true' });
  expect(Object.values(env)).not.toContain('sk-secret');
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'GITHUB_TOKEN', 'AWS_ACCESS_KEY_ID', 'MY_SERVICE_PASSWORD', 'DATABASE_SECRET', 'TEMPORAL_ADDRESS']) {
    expect(env).not.toHaveProperty(name);
  }
});
