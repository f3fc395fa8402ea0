/**
 * Coalesces text deltas into frames: the first delta goes out at once (time to first token is
 * what a visitor feels), later ones are merged so at most one frame leaves per `intervalMs`.
 */
export class FrameCoalescer {
  private buffer = '';
  private lastEmit = 0;
  private timer: NodeJS.Timeout | undefined;
  frames = 0;

  constructor(
    private readonly emit: (text: string) => void,
    private readonly intervalMs = 30,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.buffer += text;
    if (this.timer) return;
    const wait = this.frames === 0 ? 0 : this.lastEmit + this.intervalMs - this.now();
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => this.send(), wait);
  }

  /** Sends whatever is buffered now (end of stream). */
  flush(): void {
    this.send();
  }

  /** Drops buffered text and timers (stream failed or was cancelled). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.buffer = '';
  }

  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const text = this.buffer;
    this.buffer = '';
    this.lastEmit = this.now();
    this.frames += 1;
    this.emit(text);
  }
}
