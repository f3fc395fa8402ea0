/**
 * Starts the real app on port 0 for end-to-end tests: a temporary SQLite file by default, or —
 * when DATABASE_URL / REDIS_URL are set (as .ci/run does) — Postgres in a schema of its own and
 * BullMQ plus the Socket.IO Redis adapter.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { io, Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { AgentConfigService } from '../../src/agents/agent-config.service';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { dropPostgresSchema } from '../../src/database/data-source';
import type { ChatSendAck, ChatSendPayload, ClientToServerEvents, ServerToClientEvents } from '../../src/shared/contracts/socket';
import type { ReplyData } from '../../src/shared/contracts/chat';
import { LIFTED_CHAT_LIMITS } from './lifted-limits';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface TestApp {
  app: NestExpressApplication;
  url: string;
  config: AppConfig;
  dataSource: DataSource;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** Distributed mode is on when the environment names Redis / Postgres (CI sets both). */
export const distributed = {
  databaseUrl: process.env.DATABASE_URL || undefined,
  redisUrl: process.env.REDIS_URL || undefined,
};

export function uniqueSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/** Unless `chatLimits: 'defaults'`, the chat rate limits are lifted (LIFTED_CHAT_LIMITS). */
export async function startTestApp(overrides: Partial<AppConfig> = {}, options: { chatLimits?: 'defaults' | 'lifted' } = {}): Promise<TestApp> {
  const dataDir = overrides.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sa-test-'));
  const ownSchema = distributed.databaseUrl && !overrides.databaseSchema ? uniqueSchema() : undefined;
  const config = loadConfig(
    {},
    {
      port: 0,
      dataDir,
      databaseUrl: distributed.databaseUrl,
      databaseSchema: ownSchema,
      redisUrl: distributed.redisUrl,
      // Each test app gets its own Redis keys, so concurrent suites never take each other's jobs.
      redisPrefix: `t${randomBytes(4).toString('hex')}`,
      logLevel: 'error',
      localResponderDelayMs: 0,
      usageFlushMs: 20,
      ...overrides,
    },
  );
  const app = await createApp(config);
  if (options.chatLimits !== 'defaults') await app.get(AgentConfigService).updateGlobal({ chatLimits: LIFTED_CHAT_LIMITS });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    url,
    config,
    dataSource: app.get(DataSource),
    async close(options = {}) {
      await app.close();
      if (options.keepData) return;
      if (ownSchema && config.databaseUrl) await dropPostgresSchema(config.databaseUrl, ownSchema);
      if (!overrides.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A socket.io client; with `cookie`, its handshake carries that Cookie header (a visitor cookie, say). */
export function connectClient(url: string, options: { cookie?: string } = {}): Promise<ClientSocket> {
  return new Promise((resolve, reject) => {
    const socket: ClientSocket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      ...(options.cookie ? { extraHeaders: { cookie: options.cookie } } : {}),
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

export interface StreamResult {
  ack: ChatSendAck;
  deltas: string[];
  done?: ReplyData;
  error?: { message: string; code: string };
}

/** Sends one chat over the socket and collects its frames until done or error. */
export function chatOverSocket(socket: ClientSocket, payload: Omit<ChatSendPayload, 'requestId'> & { requestId?: string }, timeoutMs = 20000): Promise<StreamResult> {
  const requestId = payload.requestId ?? `r-${randomBytes(4).toString('hex')}`;
  return new Promise((resolve, reject) => {
    const result: StreamResult = { ack: { accepted: false, error: { code: 'none', message: 'no ack' } }, deltas: [] };
    const timer = setTimeout(() => finish(new Error(`no chat:done/chat:error within ${timeoutMs} ms`)), timeoutMs);
    const onDelta = (p: { requestId: string; text: string }) => p.requestId === requestId && result.deltas.push(p.text);
    const onDone = (p: { requestId: string; data: ReplyData }) => {
      if (p.requestId !== requestId) return;
      result.done = p.data;
      finish();
    };
    const onError = (p: { requestId: string; message: string; code: string }) => {
      if (p.requestId !== requestId) return;
      result.error = { message: p.message, code: p.code };
      finish();
    };
    function finish(error?: Error) {
      clearTimeout(timer);
      socket.off('chat:delta', onDelta);
      socket.off('chat:done', onDone);
      socket.off('chat:error', onError);
      if (error) reject(error);
      else resolve(result);
    }
    socket.on('chat:delta', onDelta);
    socket.on('chat:done', onDone);
    socket.on('chat:error', onError);
    socket.emit('chat:send', { ...payload, requestId } as ChatSendPayload, (ack) => {
      result.ack = ack;
      if (!ack.accepted) finish();
    });
  });
}

/** A new visitor: the `sa_visitor=...` cookie the server sets (for Cookie headers). */
export async function newVisitorCookie(url: string): Promise<string> {
  const res = await fetch(`${url}/api/visitor/conversations`);
  const cookie = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('sa_visitor='));
  if (!cookie) throw new Error('no visitor cookie was set');
  return cookie.split(';')[0];
}

/** The `sa_visitor=...` pair of a response's Set-Cookie headers (the visitor a reply was given to). */
export function visitorCookieOf(setCookie: string | string[] | undefined): string | undefined {
  return ([] as string[]).concat(setCookie ?? []).find((c) => c.startsWith('sa_visitor='))?.split(';')[0];
}

/** Parses a text/event-stream body into [event, data] pairs (and the `id:` of frames). */
export function parseSse(body: string): { event: string; data: any; id?: string }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data), ...(id === undefined ? {} : { id }) };
    });
}

/** Waits until `check` holds (polling), or fails with `describe()`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000, describe = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${describe}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
