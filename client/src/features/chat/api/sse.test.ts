import { describe, expect, it } from 'vitest';
import { SseEvent, SseParser } from './sse';

function parse(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

describe('SseParser', () => {
  it('dispatches named events on a blank line', () => {
    expect(parse(['event: chat:delta\ndata: {"text":"a"}\n\nevent: chat:done\ndata: {}\n\n'])).toEqual([
      { event: 'chat:delta', data: '{"text":"a"}' },
      { event: 'chat:done', data: '{}' },
    ]);
  });

  it('reassembles events split anywhere across chunks, including between CR and LF', () => {
    const text = 'event: chat:delta\r\ndata: {"text":"héllo"}\r\n\r\n';
    const chunks = text.split('');
    expect(parse(chunks)).toEqual([{ event: 'chat:delta', data: '{"text":"héllo"}' }]);
    expect(parse(['event: x\r', '\ndata: 1\r', '\n\r', '\n'])).toEqual([{ event: 'x', data: '1' }]);
  });

  it('joins several data lines with a newline and names unnamed events "message"', () => {
    expect(parse(['data: one\ndata: two\n\n'])).toEqual([{ event: 'message', data: 'one\ntwo' }]);
  });

  it('ignores comments, unknown fields and events without data; keeps a value without the optional space', () => {
    expect(parse([': keep-alive\n\nid: 7\nretry: 10\n\nevent: x\ndata:tight\n\n'])).toEqual([{ event: 'x', data: 'tight' }]);
  });

  it('drops an event the stream ends before finishing', () => {
    expect(parse(['event: chat:delta\ndata: {"text":"cut'])).toEqual([]);
  });
});
