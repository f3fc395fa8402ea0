/**
 * A reply as server-sent events (POST /interact with Accept: text/event-stream, and its resume at
 * GET /interact/replies/{id}/stream): `chat:delta` frames (and a `chat:restart` when another
 * server took the reply over: the text before it is discarded), then one `chat:done` or `chat:error`,
 * each with an `id:` line holding its frame number, which a client sends back as Last-Event-ID to
 * resume after it.
 */
import type { Request, Response } from 'express';
import type { ReplyFrame } from './reply-streams';

export function startEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

export function sendEvent(res: Response, event: string, payload: unknown, id?: number): void {
  if (res.writableEnded) return;
  res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`);
}

/** Writes one frame tagged with `requestId`; true when it was the last. */
export function sendFrame(res: Response, requestId: string, frame: ReplyFrame): boolean {
  switch (frame.kind) {
    case 'delta':
      sendEvent(res, 'chat:delta', { requestId, text: frame.text, seq: frame.seq }, frame.seq);
      return false;
    case 'restart':
      sendEvent(res, 'chat:restart', { requestId, seq: frame.seq, attempt: frame.attempt }, frame.seq);
      return false;
    case 'done':
      sendEvent(res, 'chat:done', { requestId, data: frame.data, seq: frame.seq }, frame.seq);
      return true;
    case 'error':
      sendEvent(res, 'chat:error', { requestId, code: frame.code, message: frame.message, seq: frame.seq }, frame.seq);
      return true;
  }
}

/** Runs `onClose` when the client goes away before the response ended. */
export function onClientGone(req: Request, res: Response, onClose: () => void): void {
  res.on('close', () => {
    if (!res.writableFinished) onClose();
  });
  req.on('aborted', onClose);
}
