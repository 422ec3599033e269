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

test.each([
  'python3 -c "import os; os.remove(\'x\')"',
  'python -Sc "print(1)"',
  "node -e \"require('fs').rmSync('x')\"",
  'node --eval=1',
  'perl -e "unlink q(x)"',
  'ruby -e "File.delete(%q(x))"',
  'bash script.sh',
  'sh ./setup.sh --fast',
  'source env.sh',
  '. ./env.sh',
  'npx vitest run',
  'npm exec -- eslint .',
  'pnpm dlx create-thing',
  'pipx run black .',
  'uvx ruff check',
  'git clone https://example.com/x.git',
  'git fetch origin',
  'git pull',
  'git submodule update --init',
  "git -c alias.x='!rm -rf .' x",
  'git -c core.sshCommand=./evil fetch',
  "git config alias.st '!sh evil.sh'",
  'git config filter.x.clean ./evil',
  'BASH_ENV=./evil.sh bash -c true',
  'export BASH_ENV=./evil.sh',
  'env LD_PRELOAD=./x.so ls',
  'NODE_OPTIONS="--require ./x.js" npm test',
  'awk \'BEGIN { system("id") }\'',
])('risky, code it cannot read or a program it names: %s', (command) => {
  expect(isRiskyCommand(command)).toBe(true);
});

test.each([
  'python3 -m pytest -q',
  'python3 app.py --help',
  'bash -c "ls -la"',
  'git -c color.ui=never log',
  'FOO=1 npm test',
  "awk '{print $1}' a.txt",
  'git config user.name',
])('safe, with the same programs: %s', (command) => {
  expect(isRiskyCommand(command)).toBe(false);
});

test('runs from before the change keep the classifier they had: inline code, scripts and npx ran without asking', () => {
  for (const command of ['python3 -c "print(1)"', 'bash scripts/check.sh', 'npx tsc --noEmit', 'git fetch', 'BASH_ENV=x bash -c true']) {
    expect(isRiskyCommand(command, false)).toBe(false);
    expect(isRiskyCommand(command)).toBe(true);
  }
});
