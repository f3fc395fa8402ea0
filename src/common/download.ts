/**
 * A file download streamed into an Express response: the headers of an attachment, and a writer
 * that waits for the client to drain (backpressure) and turns into a no-op once the client has
 * gone, so an export of any size keeps memory flat and stops when nobody reads it.
 */
import type { Response } from 'express';

export interface DownloadWriter {
  /** Writes a chunk; resolves when the client can take more (or has gone). */
  write(chunk: string): Promise<void>;
  /** The client went away: stop producing. */
  readonly closed: boolean;
  end(): void;
}

export function startDownload(res: Response, options: { contentType: string; fileName: string }): DownloadWriter {
  res.status(200);
  res.setHeader('Content-Type', options.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${options.fileName}"`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  let closed = false;
  res.on('close', () => (closed = true));
  return {
    get closed() {
      return closed;
    },
    async write(chunk: string) {
      if (closed) return;
      if (res.write(chunk)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    end() {
      if (!closed) res.end();
    },
  };
}

/**
 * One CSV field (RFC 4180 quoting). Text that a spreadsheet would run as a formula (=, +, -, @,
 * tab, carriage return first) gets a leading apostrophe: the values come from outside.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
