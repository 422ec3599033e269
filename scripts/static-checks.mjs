#!/usr/bin/env node
// `npm test`'s static checks side by side: the type check and ESLint in one process over one TypeScript program (see
// type-check-and-lint.mjs), Prettier in another. Each uses one core, so on a two-core machine the two take about as
// long as the slower instead of their sum. Each one's output is printed whole when it ends; the exit code is non-zero
// if any failed.
import { spawn } from 'node:child_process';
import path from 'node:path';

const checks = [
  ['type check and ESLint', process.execPath, ['scripts/type-check-and-lint.mjs']],
  ['Prettier', 'node_modules/.bin/prettier', ['--check', '.']],
];

const results = await Promise.all(
  checks.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => (output += `${error.message}\n`));
        child.on('close', (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(`${code === 0 ? 'ok' : 'FAILED'}: ${name} (${path.basename(command)} ${args.join(' ')}), ${seconds} s\n`);
          if (code !== 0 && output.trim()) process.stdout.write(`${output.trimEnd()}\n`);
          resolve(code === 0);
        });
      }),
  ),
);
process.exitCode = results.every(Boolean) ? 0 : 1;
