import { loadConfig } from '../config.js';
import { ensureBubblewrap } from './bubblewrap.js';

// `npm run install-sandbox`: installs (or finds) bubblewrap, the sandbox for the agent's commands.
try {
  ensureBubblewrap(loadConfig().sandbox.mode);
  console.log('bubblewrap is installed');
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
