/**
 * Coalesces text deltas into frames: the first delta goes out at once (time to first token is
 * what a visitor feels), later ones are merged so at most one frame leaves per `intervalMs`,
 * whatever the rate of the deltas; the end of a reply (drain) keeps that spacing too.
 */
export class FrameCoalescer {
  private buffer = '';
  private lastEmit = 0;
  private timer: NodeJS.Timeout | undefined;
  /** drain() callers waiting for the buffered text to go out. */
  private drained: (() => void)[] = [];
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
    this.sendOrWait();
  }

  /** Sends now if the interval since the last frame has passed, else when it will have. */
  private sendOrWait(): void {
    const wait = this.frames === 0 ? 0 : this.lastEmit + this.intervalMs - this.now();
    // A timer can fire up to a millisecond early against this clock (libuv counts from the
    // loop's cached time, in whole milliseconds): it then waits for the rest.
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sendOrWait();
    }, Math.ceil(wait));
  }

  /** Sends whatever is buffered now (a stream that failed: what the visitor got stays). */
  flush(): void {
    this.send();
  }

  /**
   * The end of a stream: resolves once the buffered text has gone out, in its turn (one frame
   * per interval: at most `intervalMs` after the previous frame). Text is buffered only while a
   * send is scheduled, so there is nothing to wait for otherwise.
   */
  drain(): Promise<void> {
    if (!this.timer) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Drops buffered text and timers (stream failed or was cancelled). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.buffer = '';
    this.release();
  }

  private release(): void {
    const waiting = this.drained;
    this.drained = [];
    for (const resolve of waiting) resolve();
  }

  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length > 0) {
      const text = this.buffer;
      this.buffer = '';
      this.lastEmit = this.now();
      this.frames += 1;
      this.emit(text);
    }
    this.release();
  }
}
