import { expect, test } from 'vitest';
import { isRiskyCommand } from '../../src/workflows/task/risky-command.js';

test.each([
  'rm notes.txt',
  'mv a b',
  'git push origin main',
  'git reset --hard HEAD~1',
  'npm install left-pad',
  'pip install requests',
  'curl -X POST https://api.example.com',
  'docker run alpine',
  'psql -c "drop table x"',
  'chmod 600 key.pem',
  'echo data > config.json',
])('risky: %s', (command) => {
  expect(isRiskyCommand(command)).toBe(true);
});

test.each([
  'ls -la',
  'npm test',
  'pytest -q',
  'cat a.txt | grep x',
  'git status',
  'git diff',
  'node --check app.js',
  'npm test 2>&1',
  'make build 2>/dev/null',
])('safe: %s', (command) => {
  expect(isRiskyCommand(command)).toBe(false);
});
