#!/usr/bin/env node
// The CLI runs from TypeScript source through tsx, the same code the worker and the tests run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/client/main.ts');
await main();
