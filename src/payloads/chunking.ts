/**
 * Content-defined chunking (a gear rolling hash, as in FastCDC): boundaries follow the bytes, not their offsets, so
 * a conversation that grew by one turn splits into the same chunks as before plus a few new ones at its end.
 */
const MIN_CHUNK = 1024;
const MAX_CHUNK = 16 * 1024;
/** 12 bits: a boundary about every 4 KB past the minimum. */
const BOUNDARY_MASK = (1 << 12) - 1;

/** 256 fixed pseudo-random words (xorshift32 from a constant seed), so every process cuts the same bytes the same way. */
const GEAR = (() => {
  const table = new Uint32Array(256);
  let state = 0x9e3779b9;
  for (let index = 0; index < 256; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    table[index] = state >>> 0;
  }
  return table;
})();

export function chunk(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = nextBoundary(bytes, start);
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

function nextBoundary(bytes: Uint8Array, start: number): number {
  const limit = Math.min(bytes.length, start + MAX_CHUNK);
  let hash = 0;
  for (let index = start; index < limit; index++) {
    hash = ((hash << 1) + GEAR[bytes[index]]) >>> 0;
    if (index - start >= MIN_CHUNK && (hash & BOUNDARY_MASK) === 0) return index + 1;
  }
  return limit;
}
