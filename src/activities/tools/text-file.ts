import type { FileHandle } from 'node:fs/promises';
import { looksBinary } from './ignored-paths.js';
import { refuse } from './tool-outcome.js';

/** The largest file `edit_file` rewrites: it holds the whole file, and its fuzzy matching, in memory. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A file's text without its byte order mark, and whether it had one, so the edited file can be written back byte for byte. */
export interface TextFile {
  text: string;
  bom: boolean;
}

/** At most `limit` bytes from the start of an open file, whatever its size claims (it may grow while being read). */
export async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * Decodes a file `edit_file` is about to rewrite. Anything but valid UTF-8 is refused: decoding Latin-1 or binary
 * bytes as UTF-8 turns them into U+FFFD, and writing that back would corrupt every line the edit never touched.
 * Valid UTF-8 decodes and encodes back to the same bytes, and the BOM is kept aside and put back.
 */
export function decodeText(bytes: Buffer, requested: string): TextFile {
  if (looksBinary(bytes)) refuse(`${requested} is a binary file; edit_file edits only text files, so it was left unchanged`);
  const bom = bytes.subarray(0, 3).equals(UTF8_BOM);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(bom ? 3 : 0)), bom };
  } catch {
    return refuse(
      `${requested} is not valid UTF-8 (line ${findInvalidLine(bytes)} has bytes in another encoding, such as Latin-1); ` +
        'edit_file rewrites only UTF-8 text, so the file was left unchanged. Convert it to UTF-8 first, or change it with run_command.',
    );
  }
}

export function encodeText(file: TextFile): Buffer {
  const body = Buffer.from(file.text, 'utf8');
  return file.bom ? Buffer.concat([UTF8_BOM, body]) : body;
}

/** 1-based line of the first byte that does not survive a UTF-8 round trip. */
function findInvalidLine(bytes: Buffer): number {
  const roundTrip = Buffer.from(bytes.toString('utf8'), 'utf8');
  let offset = 0;
  while (offset < bytes.length && bytes[offset] === roundTrip[offset]) offset++;
  let line = 1;
  for (let index = bytes.indexOf(10); index !== -1 && index < offset; index = bytes.indexOf(10, index + 1)) line++;
  return line;
}
