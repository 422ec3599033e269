/** Kept from the start of a command's output: where a build or test runner reports its first failure. */
export const OUTPUT_HEAD_BYTES = 1_000_000;
/** Kept from the end: the summary lines. */
export const OUTPUT_TAIL_BYTES = 256_000;

/**
 * A command's output, capped while it streams: the first megabyte and the last 256 KB are kept, the middle is only
 * counted. A command that writes 100 MB costs the worker about 1.3 MB, not the 100 MB (or a killed command) that
 * buffering everything would.
 */
export class OutputCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte the command wrote. */
  totalBytes = 0;

  constructor(
    private readonly headLimit = OUTPUT_HEAD_BYTES,
    private readonly tailLimit = OUTPUT_TAIL_BYTES,
  ) {}

  write(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = this.headLimit - this.headBytes;
    if (room > 0) {
      const kept = chunk.subarray(0, room);
      this.head.push(kept);
      this.headBytes += kept.length;
      chunk = chunk.subarray(kept.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.tailLimit) this.tailBytes -= this.tail.shift()!.length;
  }

  /** Bytes left out of `text()`. */
  get omittedBytes(): number {
    return Math.max(0, this.totalBytes - this.headLimit - this.tailLimit);
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tailBuffer = Buffer.concat(this.tail);
    const tail = tailBuffer.subarray(Math.max(0, tailBuffer.length - this.tailLimit)).toString('utf8');
    if (this.omittedBytes === 0) return head + Buffer.concat(this.tail).toString('utf8');
    return `${head}\n… ${this.omittedBytes} bytes of output omitted …\n${tail}`;
  }
}
