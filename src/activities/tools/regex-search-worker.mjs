/**
 * The thread `search_codebase` runs its regular expression on, started by regex-search.ts. A pattern such as
 * `^(a+)+$` can backtrack for minutes over one line and a running match cannot be interrupted from JavaScript: here
 * it holds up only this thread, which is terminated when its time runs out, never the worker's event loop.
 *
 * Plain JavaScript, so it loads the same under tsx, vitest and node without a TypeScript loader.
 *
 * workerData: { pattern: string, flags: string, maxLineChars: number }
 * each message in: { files: { name: string, bytes: Uint8Array }[], keep: number }
 * each reply: { total: number, shown: { file: string, line: number, text: string }[] }, `shown` holding the first
 * `keep` matching lines, each cut to `maxLineChars` characters.
 */
import { parentPort, workerData } from 'node:worker_threads';

const regex = new RegExp(workerData.pattern, workerData.flags);
const decoder = new TextDecoder();

parentPort.on('message', ({ files, keep }) => {
  let total = 0;
  const shown = [];
  for (const { name, bytes } of files) {
    const lines = decoder.decode(bytes).split(/\r?\n/);
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index];
      if (!regex.test(line)) continue;
      total += 1;
      if (shown.length < keep) shown.push({ file: name, line: index + 1, text: cutLine(line) });
    }
  }
  parentPort.postMessage({ total, shown });
});

function cutLine(line) {
  return line.length > workerData.maxLineChars ? `${line.slice(0, workerData.maxLineChars)}…` : line;
}
