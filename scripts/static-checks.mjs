#!/usr/bin/env node
// `npm test`'s static checks side by side: the type check, ESLint and Prettier each use one core, so on a two-core
// machine the three take about as long as the slowest instead of their sum. Each one's output is printed whole when
// it ends; the exit code is non-zero if any failed.
import { spawn } from 'node:child_process';

const checks = [
  ['type check', 'tsc', ['--noEmit']],
  ['ESLint', 'eslint', ['.']],
  ['Prettier', 'prettier', ['--check', '.']],
];

const results = await Promise.all(
  checks.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(`node_modules/.bin/${command}`, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => (output += `${error.message}\n`));
        child.on('close', (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(`${code === 0 ? 'ok' : 'FAILED'}: ${name} (${command} ${args.join(' ')}), ${seconds} s\n`);
          if (code !== 0 && output.trim()) process.stdout.write(`${output.trimEnd()}\n`);
          resolve(code === 0);
        });
      }),
  ),
);
process.exitCode = results.every(Boolean) ? 0 : 1;
