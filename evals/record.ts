/**
 * `npm run eval:record`: makes evals/recordings/ again. Each case of evals/suite.yaml runs as `codeloop eval` runs it,
 * on a Temporal dev server of its own, with the model replaced by the case's scripted session (evals/scripted/) and
 * the workers recording every exchange (`CODELOOP_RECORD`). Only when every case passes are the recordings copied in,
 * one `<case-id>.jsonl` each, so `codeloop eval evals/suite.yaml --replay evals/recordings` replays them with no key.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { loadSuite } from '../src/eval/load-suite.js';
import { recordingFile } from '../src/activities/model-recording.js';
import { renderResults } from '../src/eval/table.js';
import { startDevServer } from '../src/server/dev-server.js';
import { createWorkerLogger } from '../src/worker-logger.js';
import { freePort } from '../tests/support/free-port.js';
import { solvingSessions } from './scripted/index.js';
import { runScriptedEval } from './scripted/scripted-eval.js';

const evalsDir = path.dirname(fileURLToPath(import.meta.url));
const recordingsDir = path.join(evalsDir, 'recordings');

async function main(): Promise<void> {
  Runtime.install({ logger: createWorkerLogger('WARN') });
  const suite = loadSuite(path.join(evalsDir, 'suite.yaml'));
  const server = await startDevServer({ port: await freePort(), stdio: 'ignore' });
  const connection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const recordDir = mkdtempSync(path.join(os.tmpdir(), 'codeloop-recordings-'));
  try {
    const { results, problems } = await runScriptedEval({
      suite,
      sessions: solvingSessions(),
      client: new Client({ connection: clientConnection }),
      connection,
      recordDir,
      eval: { maxParallel: 2, onProgress: (line) => console.error(line) },
    });
    console.log(renderResults(results));
    if (results.totals.passed !== results.totals.runs || problems.length > 0) {
      throw new Error(`not every case passed (${problems.join('; ') || 'see above'}); evals/recordings/ is left as it was`);
    }
    mkdirSync(recordingsDir, { recursive: true });
    for (const name of readdirSync(recordingsDir)) if (name.endsWith('.jsonl')) rmSync(path.join(recordingsDir, name));
    for (const run of results.runs)
      copyFileSync(recordingFile(recordDir, run.workflowId!), path.join(recordingsDir, `${run.caseId}.jsonl`));
    console.log(`recorded ${results.runs.length} sessions into ${path.relative(process.cwd(), recordingsDir)}/`);
  } finally {
    rmSync(recordDir, { recursive: true, force: true });
    await connection.close();
    await clientConnection.close();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(`eval:record: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
