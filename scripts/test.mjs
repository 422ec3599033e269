#!/usr/bin/env node
// `npm test`: the static checks (scripts/static-checks.mjs) and the vitest suite side by side. The suite spends its
// first seconds bundling the workflows and starting the dev server on one core, and its last ones on a few files;
// the checks fill those gaps instead of running before it. The exit code is non-zero if either failed.
import { spawn } from 'node:child_process';

const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${command}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const [checks, suite] = await Promise.all([
  run(process.execPath, ['scripts/static-checks.mjs']),
  run('node_modules/.bin/vitest', ['run', ...process.argv.slice(2)]),
]);
if (checks !== 0) console.error('npm test: the static checks failed (their output is above)');
process.exitCode = checks !== 0 || suite !== 0 ? 1 : 0;
