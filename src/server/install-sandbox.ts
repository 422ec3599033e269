import { findExecutable } from '../activities/process/find-executable.js';
import { loadConfig } from '../config.js';
import { ensureBubblewrap, ensureRipgrep } from './bubblewrap.js';

// `npm run install-sandbox`: installs (or finds) bubblewrap, the sandbox for the agent's commands, and ripgrep, which
// search_codebase runs inside it.
try {
  ensureBubblewrap(loadConfig().sandbox.mode);
  ensureRipgrep();
  console.log(`bubblewrap is installed${findExecutable('rg') ? ', and ripgrep' : ''}`);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
