/** One server-sent event: its name ('message' when unnamed) and its data lines joined by '\n'. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (the WHATWG rules that matter here): lines end in
 * LF, CRLF or CR, even when a chunk boundary falls between CR and LF; a blank line dispatches;
 * `event:` names the event, `data:` lines accumulate; lines starting with ':' are comments.
 */
export class SseParser {
  private buffer = '';
  private eventName = '';
  private dataLines: string[] = [];

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) return;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) return;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  /** The stream ended: an event without its closing blank line is dropped, as the standard says. */
  end(): void {
    this.buffer = '';
    this.eventName = '';
    this.dataLines = [];
  }

  private line(line: string): void {
    if (line === '') {
      if (this.dataLines.length > 0) this.onEvent({ event: this.eventName || 'message', data: this.dataLines.join('\n') });
      this.eventName = '';
      this.dataLines = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventName = value;
    else if (field === 'data') this.dataLines.push(value);
  }
}
