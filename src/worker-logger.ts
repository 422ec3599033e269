import { DefaultLogger, type LogLevel } from '@temporalio/worker';

/** The host-queue worker registers no workflows by design; the SDK's warning about it is noise. */
const EXPECTED = ['No workflows registered, not polling for workflow tasks'];

/** The worker runtime's logger at `level` (`CODELOOP_LOG_LEVEL`, see `loadConfig`), minus warnings codeloop expects. */
export function createWorkerLogger(level: LogLevel): DefaultLogger {
  const base = new DefaultLogger();
  return new DefaultLogger(level, (entry) => {
    if (!EXPECTED.includes(entry.message)) base.log(entry.level, entry.message, entry.meta);
  });
}
