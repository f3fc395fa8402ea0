import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { currentLogFields } from './log-context';

export type LogFormat = 'json' | 'text';

/**
 * Nest's console logger, with the request id and reply id in scope (log-context.ts) on every line:
 * JSON lines in production (one object per line: level, time, context, message, requestId,
 * replyId), readable text in development (the ids in brackets after the context).
 */
export class AppLogger extends ConsoleLogger {
  constructor(format: LogFormat, logLevels: LogLevel[]) {
    super({ json: format === 'json', logLevels, colors: format === 'text' && process.stdout.isTTY === true });
  }

  protected override getJsonLogObject(message: unknown, options: { context: string; logLevel: LogLevel; writeStreamType?: 'stdout' | 'stderr'; errorStack?: unknown }) {
    const fields = currentLogFields();
    return Object.assign(super.getJsonLogObject(message, options), fields?.requestId ? { requestId: fields.requestId } : {}, fields?.replyId ? { replyId: fields.replyId } : {});
  }

  protected override formatContext(context: string): string {
    const fields = currentLogFields();
    const ids = [fields?.requestId && `req ${fields.requestId}`, fields?.replyId && `reply ${fields.replyId}`].filter(Boolean).join(' ');
    return super.formatContext(context) + (ids ? `(${ids}) ` : '');
  }
}
