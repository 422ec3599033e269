import type { FileHandle } from 'node:fs/promises';
import { looksBinary } from './ignored-paths.js';

/** A line as `read_file` shows it: its text, cut to the cap when `cut`, and its whole length in bytes. */
export interface ScannedLine {
  number: number;
  text: string;
  bytes: number;
  cut: boolean;
}

export interface LineRequest {
  /** 1-based numbers of the first and last line to keep. */
  from: number;
  to: number;
  /** How many of the file's last lines to keep as well. */
  tail: number;
  /** Characters kept of a longer line. */
  maxLineChars: number;
}

export type LineScan =
  | { binary: true }
  | {
      binary: false;
      /** Lines in the file; a final newline does not start another, and an empty file has one empty line. */
      total: number;
      lines: ScannedLine[];
      tail: ScannedLine[];
    };

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Reads a file in chunks and keeps only the lines asked for, each cut to `maxLineChars`: a 5 MB one-line bundle or
 * a huge log costs a chunk of memory plus what is shown, never the whole file. Tail lines past `to` are found by
 * remembering where the last lines start and reading from there again at the end. `\r\n` counts as one line break, and a UTF-8 byte
 * order mark is not shown.
 */
export async function scanLines(handle: FileHandle, request: LineRequest): Promise<LineScan> {
  const first = await collectLines(handle, 0, 1, request);
  if (first.binary) return first;
  const { total, starts, lines } = first;
  if (request.tail === 0) return { binary: false, total, lines, tail: [] };
  const tailFrom = Math.max(1, total - request.tail + 1);
  const tail = lines.filter((line) => line.number >= tailFrom);
  const rereadFrom = Math.max(tailFrom, request.to + 1);
  if (rereadFrom > total) return { binary: false, total, lines, tail };
  const rest = await collectLines(handle, starts[(rereadFrom - 1) % starts.length]!, rereadFrom, {
    ...request,
    from: rereadFrom,
    to: total,
    tail: 0,
  });
  return { binary: false, total, lines, tail: rest.binary ? tail : [...tail, ...rest.lines] };
}

type Collected = { binary: true } | { binary: false; total: number; lines: ScannedLine[]; starts: number[] };

/**
 * One pass from byte `position`, where line `number` starts. `starts` is a ring of the byte offsets where the last
 * `tail + 1` lines start, indexed by `(line - 1) % length`.
 */
async function collectLines(handle: FileHandle, position: number, number: number, request: LineRequest): Promise<Collected> {
  const keepBytes = request.maxLineChars * 4;
  const lines: ScannedLine[] = [];
  const starts = new Array<number>(request.tail + 1).fill(0);
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let lineBytes = 0;
  let offset = position;
  starts[(number - 1) % starts.length] = offset;

  const endLine = (ended: boolean) => {
    if (number >= request.from && number <= request.to)
      lines.push(showLine(number, Buffer.concat(kept), lineBytes, ended, request.maxLineChars));
    number += 1;
    kept = [];
    keptBytes = 0;
    lineBytes = 0;
    starts[(number - 1) % starts.length] = offset;
  };

  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, offset);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    if (offset === 0 && looksBinary(data)) return { binary: true };
    for (let start = 0; start < data.length;) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline;
      const wanted = number >= request.from && number <= request.to;
      if (wanted && keptBytes < keepBytes) {
        const piece = Buffer.from(data.subarray(start, Math.min(end, start + keepBytes - keptBytes)));
        kept.push(piece);
        keptBytes += piece.length;
      }
      lineBytes += end - start;
      offset += end - start;
      if (newline === -1) break;
      offset += 1;
      endLine(true);
      start = end + 1;
    }
  }
  if (lineBytes > 0 || number === 1) endLine(false);
  return { binary: false, total: number - 1, lines, starts };
}

function showLine(number: number, kept: Buffer, bytes: number, ended: boolean, maxLineChars: number): ScannedLine {
  const whole = kept.length === bytes;
  let body = number === 1 && kept.subarray(0, 3).equals(UTF8_BOM) ? kept.subarray(3) : kept;
  if (whole && ended && body.at(-1) === CARRIAGE_RETURN) body = body.subarray(0, -1);
  const text = body.toString('utf8');
  if (whole && text.length <= maxLineChars) return { number, text, bytes, cut: false };
  const splitsPair = /[\ud800-\udbff]/.test(text.charAt(maxLineChars - 1));
  return { number, text: text.slice(0, splitsPair ? maxLineChars - 1 : maxLineChars), bytes, cut: true };
}
