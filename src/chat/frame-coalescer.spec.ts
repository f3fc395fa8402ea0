import { FrameCoalescer } from './frame-coalescer';

describe('FrameCoalescer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup(interval = 30) {
    let clock = 0;
    const frames: string[] = [];
    const c = new FrameCoalescer((t) => frames.push(t), interval, () => clock);
    const advance = (ms: number) => {
      clock += ms;
      jest.advanceTimersByTime(ms);
    };
    return { c, frames, advance };
  }

  it('sends the first delta at once', () => {
    const { c, frames } = setup();
    c.push('Hello');
    expect(frames).toEqual(['Hello']);
  });

  it('merges deltas that arrive within the interval into one frame', () => {
    const { c, frames, advance } = setup();
    c.push('a');
    for (const t of ['b', 'c', 'd']) {
      advance(5);
      c.push(t);
    }
    expect(frames).toEqual(['a']);
    advance(15);
    expect(frames).toEqual(['a', 'bcd']);
  });

  it('sends at most one frame per interval for a steady stream, losing nothing', () => {
    const { c, frames, advance } = setup();
    const deltas = Array.from({ length: 64 }, (_, i) => `w${i} `);
    for (const d of deltas) {
      c.push(d);
      advance(2);
    }
    c.flush();
    expect(frames.join('')).toBe(deltas.join(''));
    expect(frames.length).toBeLessThanOrEqual(Math.ceil((64 * 2) / 30) + 2);
  });

  it('flush sends what is buffered and discard drops it', () => {
    const { c, frames, advance } = setup();
    c.push('x');
    c.push('y');
    c.flush();
    expect(frames).toEqual(['x', 'y']);
    c.push('z');
    c.discard();
    advance(100);
    expect(frames).toEqual(['x', 'y']);
  });
});

describe('FrameCoalescer.drain (end of a reply)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends the buffered tail one interval after the previous frame, never sooner, at any delta rate', async () => {
    for (const gap of [0, 1, 2, 7, 20, 29, 31, 45]) {
      let clock = 0;
      const sent: { at: number; text: string }[] = [];
      const c = new FrameCoalescer((text) => sent.push({ at: clock, text }), 30, () => clock);
      const deltas = Array.from({ length: 40 }, (_, i) => `w${i} `);
      for (const d of deltas) {
        c.push(d);
        clock += gap;
        jest.advanceTimersByTime(gap);
      }
      let done = false;
      void c.drain().then(() => (done = true));
      while (!done) {
        clock += 1;
        jest.advanceTimersByTime(1);
        await Promise.resolve();
      }
      expect(sent.map((f) => f.text).join('')).toBe(deltas.join(''));
      expect(sent[0]).toEqual({ at: 0, text: 'w0 ' });
      for (let i = 1; i < sent.length; i += 1) expect(sent[i].at - sent[i - 1].at).toBeGreaterThanOrEqual(30);
    }
  });

  it('resolves at once with nothing buffered, and when the stream is discarded', async () => {
    const c = new FrameCoalescer(() => undefined, 30, () => 0);
    await c.drain();
    c.push('a');
    c.push('b');
    const drained = c.drain();
    c.discard();
    await drained;
  });
});
