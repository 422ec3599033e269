import { Runtime } from '@temporalio/worker';
import { ConfigError, type LogLevel, type TelemetryConfig } from '../config.js';
import { METRIC_BUCKETS } from '../shared/metrics.js';
import { createWorkerLogger } from '../worker-logger.js';

/**
 * Installs the process's Temporal runtime: its logger and, with `CODELOOP_METRICS_ADDRESS`, the Prometheus endpoint
 * that serves the SDK's own metrics (polls, task latencies, slots, sticky cache) and codeloop's, which workflows and
 * activities record through the SDK's meters. The runtime is process-wide and fixed once anything has connected, so
 * this runs first, once, in each entry point that runs workers.
 */
export function installWorkerRuntime(logLevel: LogLevel, { metricsAddress }: TelemetryConfig): void {
  const logger = createWorkerLogger(logLevel);
  if (!metricsAddress) {
    Runtime.install({ logger });
    return;
  }
  try {
    Runtime.install({
      logger,
      telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress, histogramBucketOverrides: METRIC_BUCKETS } } },
    });
  } catch (error) {
    throw new ConfigError(
      `CODELOOP_METRICS_ADDRESS ${metricsAddress} cannot be served (${(error as Error).message}); set a free port, or unset it to serve no metrics`,
      { cause: error },
    );
  }
}
