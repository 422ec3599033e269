import { ensureTemporalBinary } from './temporal-binary.js';

// `npm run install-temporal`: installs (or finds) the Temporal CLI and prints its path.
try {
  console.log(ensureTemporalBinary());
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
