const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A live status line on a terminal (redrawn in place, with a spinner), plain lines when the output is not a terminal
 * (a log, a pipe, CI): there, only changes are printed.
 */
export class Progress {
  private frame = 0;
  private lastLine = '';
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  get interactive(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** A line that stays: an event worth keeping in the scrollback. */
  log(line: string): void {
    this.clear();
    this.stream.write(`${line}\n`);
  }

  /** The current status: redrawn in place on a terminal, printed when it changes otherwise. */
  status(line: string): void {
    if (this.interactive) {
      this.clear();
      this.stream.write(`${FRAMES[this.frame++ % FRAMES.length]} ${line}`);
      this.drawn = true;
    } else if (line !== this.lastLine) {
      this.stream.write(`${line}\n`);
    }
    this.lastLine = line;
  }

  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
