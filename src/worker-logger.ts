import { DefaultLogger, type LogLevel } from '@temporalio/worker';

/** The host-queue worker registers no workflows by design; the SDK's warning about it is noise. */
const EXPECTED = ['No workflows registered, not polling for workflow tasks'];

/** The worker runtime's logger: `CODELOOP_LOG_LEVEL` (default WARN), minus warnings codeloop expects. */
export function createWorkerLogger(level: string | undefined = process.env.CODELOOP_LOG_LEVEL): DefaultLogger {
  const base = new DefaultLogger();
  return new DefaultLogger((level?.toUpperCase() as LogLevel) || 'WARN', (entry) => {
    if (!EXPECTED.includes(entry.message)) base.log(entry.level, entry.message, entry.meta);
  });
}
