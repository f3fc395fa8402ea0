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
