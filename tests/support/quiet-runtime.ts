import { Runtime } from '@temporalio/worker';
import { createWorkerLogger } from '../../src/worker-logger.js';

// Worker state changes at INFO drown the test output; warnings and errors still show.
Runtime.install({ logger: createWorkerLogger('WARN') });
