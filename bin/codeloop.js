#!/usr/bin/env node
// The CLI runs from its TypeScript source: compiled once and reused until the source changes (see compiled.js), or
// through tsx where it cannot be compiled, the same code the worker and the tests run.
import { compiledCli } from './compiled.js';

const compiled = await compiledCli();
if (!compiled) (await import('tsx/esm/api')).register();
const { main } = await import(compiled ?? '../src/client/main.ts');
await main();
