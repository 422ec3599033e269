import { findExecutable } from '../../process/find-executable.js';
import { createSandbox, type Sandbox } from '../../process/sandbox.js';
import { builtInSearch } from './built-in-search.js';
import { createRipgrepEngine } from './ripgrep-search.js';
import type { SearchEngine } from './search-engine.js';

/**
 * The engine a worker searches with: ripgrep (`rg` on the worker's `PATH`: Debian's `ripgrep` package, or
 * `cargo install ripgrep`) run through `sandbox`, else the built-in search, which the worker's start-up log then names
 * as the slower fallback.
 */
export function createSearchEngine(sandbox: Sandbox, searchPath = process.env.PATH ?? ''): SearchEngine {
  const rg = findExecutable('rg', [], searchPath);
  return rg ? createRipgrepEngine(rg, sandbox) : builtInSearch;
}

let processEngine: SearchEngine | undefined;

/** For a search outside a worker (the tools called directly, the bench): the engine a worker of this process would use. */
export function defaultSearchEngine(): SearchEngine {
  return (processEngine ??= createSearchEngine(createSandbox()));
}
