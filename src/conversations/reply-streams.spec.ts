import type { AppConfig } from '../config/app-config';
import type { ReplyData } from '../shared/contracts/chat';
import { REPLY_STREAM_TTL_MS, ReplyStreamService, type ReplyFrame } from './reply-streams';

const config = { redisUrl: undefined, redisPrefix: 't', chatTimeoutMs: 130000 } as AppConfig;
const done = { response: 'Hello world' } as ReplyData;

function collect(): { frames: ReplyFrame[]; listener: (f: ReplyFrame) => void } {
  const frames: ReplyFrame[] = [];
  return { frames, listener: (f) => frames.push(f) };
}

describe('ReplyStreamService (this server, no Redis)', () => {
  let streams: ReplyStreamService;

  beforeEach(() => {
    streams = new ReplyStreamService(config);
  });

  afterEach(async () => {
    await streams.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('numbers frames from 1; a follower joining mid-reply gets the backlog after its position, then the live frames, each once', async () => {
    const producer = streams.begin('r1', { visitorKey: 'v' }, () => undefined);
    expect(producer.delta('Hel')).toBe(1);
    expect(producer.delta('lo')).toBe(2);
    const late = collect();
    expect(await streams.follow('r1', 'v', 1, late.listener)).toMatchObject({ ok: true });
    producer.delta(' world');
    producer.end({ kind: 'done', data: done });
    expect(late.frames.map((f) => f.seq)).toEqual([2, 3, 4]);
    expect(late.frames.map((f) => (f.kind === 'delta' ? f.text : f.kind))).toEqual(['lo', ' world', 'done']);
    // Nothing after the final frame.
    expect(producer.delta('more')).toBe(4);
    expect(producer.end({ kind: 'error', code: 'x', message: 'y' }).kind).toBe('done');
  });

  it('only the visitor who asked can follow, read or stop a reply', async () => {
    const cancel = jest.fn();
    streams.begin('r2', { visitorKey: 'owner' }, cancel);
    expect(await streams.follow('r2', 'stranger', 0, () => undefined)).toEqual({ ok: false, code: 'forbidden' });
    expect(await streams.read('r2', 'stranger')).toBe('forbidden');
    await streams.cancel('r2', 'stranger');
    expect(cancel).not.toHaveBeenCalled();
    await streams.cancel('r2', 'owner');
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(await streams.follow('nope', 'owner', 0, () => undefined)).toEqual({ ok: false, code: 'not_found' });
  });

  it('keeps an ended reply readable for REPLY_STREAM_TTL_MS, then forgets it', async () => {
    jest.useFakeTimers();
    const producer = streams.begin('r3', { visitorKey: 'v' }, () => undefined);
    producer.delta('a');
    producer.end({ kind: 'done', data: done });
    jest.advanceTimersByTime(REPLY_STREAM_TTL_MS - 1);
    expect(await streams.read('r3', 'v')).toMatchObject({ ended: true, frames: [{ seq: 1 }, { seq: 2, kind: 'done' }] });
    jest.advanceTimersByTime(1);
    expect(await streams.read('r3', 'v')).toBe('not_found');
  });

  it('a visitor deleting their conversations stops their running replies and drops their streams', async () => {
    const cancel = jest.fn();
    streams.begin('r4', { visitorKey: 'v' }, cancel);
    const other = streams.begin('r5', { visitorKey: 'w' }, () => undefined);
    await streams.cancelVisitor('v');
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(await streams.read('r4', 'v')).toBe('not_found');
    other.delta('still here');
    expect(await streams.read('r5', 'w')).toMatchObject({ frames: [{ seq: 1 }] });
  });
});
