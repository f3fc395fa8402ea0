import { Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { json, type NextFunction, type Request, type Response } from 'express';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { A2aHttp } from './a2a/a2a-http';
import { AppModule } from './app.module';
import { McpHttp } from './mcp/mcp-http';
import { AdminApiGate } from './auth/admin-api-gate';
import { AppSocketIoAdapter } from './chat/socket-io.adapter';
import { VisitorIdentity } from './conversations/visitor-identity';
import { setupApiDocs } from './common/openapi';
import { ClientAddressResolver } from './common/client-address';
import { requestIdMiddleware } from './common/request-id';
import { securityHeaders } from './common/security-headers';
import { AppLogger } from './common/app-logger';
import { ShutdownState } from './common/shutdown-state';
import type { AppConfig } from './config/app-config';

/** JSON bodies in general: chat requests, settings. */
const JSON_BODY_LIMIT = '1mb';
/**
 * Knowledge items carry their new attachments inline: up to 10 MB each, base64 (4/3 larger) or
 * JSON-escaped text; kept attachments are sent without content. 32 MB holds three full-size
 * text files in one save. A larger body is refused (413) from its Content-Length, before it is
 * read: parsing 60 MB of JSON held the event loop for up to 0.8 s on 2 busy cores (/health
 * stalled meanwhile).
 */
const KNOWLEDGE_BODY_LIMIT = '32mb';
const API_PREFIXES = ['/api/', '/interact', '/health', '/agents/', '/socket.io', '/a2a', '/mcp', '/.well-known/', '/widget/'];

const LOG_LEVELS: Record<AppConfig['logLevel'], LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/**
 * Serves the built client: its files, and index.html for client-side routes ("/admin", ...). The
 * chat page comes with the visitor cookie (renewed on every load), so its socket and first fetch
 * already carry it.
 */
function serveClient(app: NestExpressApplication, clientDir: string): void {
  const index = path.join(clientDir, 'index.html');
  if (!fs.existsSync(index)) {
    new Logger('Client').warn(`No built client at ${clientDir}; run "npm run build" to serve the web app`);
    return;
  }
  const visitors = app.get(VisitorIdentity);
  // The widget's iframe page is served only at /widget/{id}, with its frame-ancestors.
  app.use('/widget-frame/widget.html', (_req: Request, res: Response) => res.status(404).end());
  app.useStaticAssets(clientDir, { index: false, maxAge: '1h', setHeaders: (res, file) => {
    if (file.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  } });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (API_PREFIXES.some((p) => req.path === p.replace(/\/$/, '') || req.path.startsWith(p))) return next();
    if (!req.accepts('html')) return next();
    res.setHeader('Cache-Control', 'no-cache');
    if (!req.path.startsWith('/admin')) visitors.ensure(req, res, true);
    res.sendFile(index);
  });
}

/** Builds the whole app (HTTP API, sockets, client) without listening: main.ts and tests share it. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger: new AppLogger(config.logFormat, LOG_LEVELS[config.logLevel]),
    bodyParser: false,
    // A failed start rejects (main.ts says why, e.g. the database it could not reach) instead of Nest exiting the process itself.
    abortOnError: false,
  });
  // CSP, nosniff and the referrer policy on every response, errors and static files included.
  app.use(securityHeaders);
  app.use(requestIdMiddleware);
  // Who each request comes from, decided once (TRUST_PROXY says whose X-Forwarded-* count).
  const addresses = app.get(ClientAddressResolver);
  app.use(addresses.middleware);
  // /api/knowledge, /api/config, /api/analytics need an admin session before anything else runs
  // (no body parsing for strangers; unknown paths there answer 401 too).
  app.use(app.get(AdminApiGate).handler);
  // A2A and MCP check the key and read their JSON-RPC bodies themselves (errors as JSON-RPC).
  app.use(app.get(A2aHttp).router);
  app.use(app.get(McpHttp).router);
  app.use('/api/knowledge', json({ limit: KNOWLEDGE_BODY_LIMIT }));
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.disable('x-powered-by');
  app.set('trust proxy', addresses.expressTrust);
  if (config.corsOrigins.length > 0) app.enableCors({ origin: config.corsOrigins, credentials: true });
  app.useWebSocketAdapter(new AppSocketIoAdapter(app, config));
  // /api/openapi.json and the /api/docs reference (public; built on the first request).
  setupApiDocs(app);
  serveClient(app, config.clientDir);
  // Draining starts at the signal itself (this listener runs before Nest's), or when close() is
  // called: /health answers 503 from that moment while running replies finish.
  const shutdown = app.get(ShutdownState);
  shutdown.listen();
  app.enableShutdownHooks();
  const close = app.close.bind(app);
  app.close = () => {
    shutdown.begin();
    return close();
  };
  return app;
}
