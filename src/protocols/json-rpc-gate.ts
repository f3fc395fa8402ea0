/**
 * What the A2A and MCP endpoints do before their SDK sees a request: the API key (with the
 * endpoint's scope), the JSON body (bounded, parsed here so a bad one is a JSON-RPC error and never
 * an HTML page or a 500), and the JSON-RPC envelope. Every refusal is a JSON-RPC error object
 * (`{"jsonrpc":"2.0","id":…,"error":{"code","message"}}`) with the HTTP status that fits: 401 / 403
 * for the key (with WWW-Authenticate), 429 past a rate limit (with Retry-After), 413 for a body over
 * the limit, 400 for a body that is not a JSON-RPC request.
 */
import { json, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../common/app-error';
import { clientAddressOf } from '../common/client-address';
import { requestIdOf } from '../common/request-id';
import type { ApiKeyScope } from '../shared/contracts/api-keys';
import { bodyLimitFor } from '../shared/contracts/http';
import { API_KEY_MESSAGES } from '../api-keys/api-keys.errors';
import type { ApiKeyPrincipal, ApiKeysService } from '../api-keys/api-keys.service';
import { apiKeyOf } from '../api-keys/require-api-key';

export const JSON_RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error: the key, a rate limit, a budget, a restart. */
  serverError: -32000,
} as const;

/** The largest JSON-RPC request body (the question itself is bounded tighter by the chat contract). */
export const JSON_RPC_BODY_LIMIT_BYTES = bodyLimitFor('/a2a');

/** Who called a machine endpoint: the key, where from, and a signal that fires when the caller goes away. */
export interface MachineCaller {
  apiKey: ApiKeyPrincipal;
  ip: string | undefined;
  requestId: string;
  /** Aborted when the client closed the connection before the response ended. */
  gone: AbortSignal;
  /** A refusal of the chat pipeline (a rate limit, ...) that a handler noted for the HTTP layer to send. */
  refusal?: AppError;
}

export type CallerRequest = Request & { machineCaller?: MachineCaller };

type JsonRpcId = string | number | null;

export function jsonRpcError(id: JsonRpcId, code: number, message: string, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id, error: { code, message, ...(data ? { data } : {}) } };
}

function send(res: Response, status: number, id: JsonRpcId, code: number, message: string, data?: Record<string, unknown>): void {
  if (res.headersSent) return;
  res.status(status).json(jsonRpcError(id, code, message, data));
}

/** The request's id if it is a valid JSON-RPC id, else null. */
export function jsonRpcIdOf(body: unknown): JsonRpcId {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

export interface GateOptions {
  scope: Extract<ApiKeyScope, 'a2a' | 'mcp'>;
  keys: ApiKeysService;
  /** 'refuse': a batch (an array) is an invalid request; 'pass': the SDK answers it. */
  batches: 'refuse' | 'pass';
  /** What WWW-Authenticate names (the endpoint's realm). */
  realm: string;
}

/** A refusal's HTTP status and JSON-RPC error data: its code and, past a rate limit, the wait. */
export function refusalOf(error: AppError): { status: number; retryAfterSeconds?: number; data: Record<string, unknown> } {
  const retry = error.details?.retryAfterSeconds;
  const retryAfterSeconds = typeof retry === 'number' ? retry : undefined;
  return { status: error.status, retryAfterSeconds, data: { code: error.code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) } };
}

/** The key check: the caller's key must exist, be active and carry the scope. */
function authenticate(options: GateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const raw = apiKeyOf(req.headers);
    const refuse = (error: AppError) => {
      const { status, retryAfterSeconds, data } = refusalOf(error);
      if (status === 401) res.setHeader('WWW-Authenticate', `Bearer realm="${options.realm}"`);
      if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
      send(res, status, null, JSON_RPC_ERRORS.serverError, error.message, data);
    };
    if (raw === undefined) return refuse(new AppError('unauthorized', API_KEY_MESSAGES.missing));
    options.keys.authenticate(raw, options.scope).then(
      (apiKey) => {
        const closed = new AbortController();
        res.on('close', () => {
          if (!res.writableFinished) closed.abort();
        });
        (req as CallerRequest).machineCaller = { apiKey, ip: clientAddressOf(req).ip, requestId: requestIdOf(req), gone: closed.signal };
        next();
      },
      (error: unknown) => {
        if (error instanceof AppError) return refuse(error);
        // The key store could not be read (the database is down): the caller may retry.
        send(res, 503, null, JSON_RPC_ERRORS.serverError, 'The service is unavailable for a moment. Please try again.', { code: 'service_unavailable' });
      },
    );
  };
}

const parseJson = json({ limit: JSON_RPC_BODY_LIMIT_BYTES, strict: false, type: ['application/json', 'application/*+json'] });

/** The body as JSON, or a JSON-RPC parse error (400) / too-large error (413). */
function body(req: Request, res: Response, next: NextFunction): void {
  parseJson(req, res, (error?: unknown) => {
    if (!error) return next();
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      return send(res, 413, null, JSON_RPC_ERRORS.invalidRequest, `The request is too large: at most ${JSON_RPC_BODY_LIMIT_BYTES / 1024 / 1024} MB.`);
    }
    if (type === 'entity.parse.failed') return send(res, 400, null, JSON_RPC_ERRORS.parseError, 'The body is not valid JSON.');
    return send(res, 400, null, JSON_RPC_ERRORS.invalidRequest, 'The body could not be read as JSON (check its Content-Encoding and charset).');
  });
}

/** A single JSON-RPC 2.0 request object (a batch per `batches`). */
function envelope(options: GateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const value: unknown = req.body;
    // No JSON body (another Content-Type): the SDK says which types it accepts.
    if (!req.is('application/json') && !req.is('application/*+json')) return next();
    if (Array.isArray(value)) {
      if (options.batches === 'pass') return next();
      return send(res, 400, null, JSON_RPC_ERRORS.invalidRequest, 'Batch requests are not supported: send one JSON-RPC request per HTTP request.');
    }
    const id = jsonRpcIdOf(value);
    if (!value || typeof value !== 'object') return send(res, 400, null, JSON_RPC_ERRORS.invalidRequest, 'The body must be a JSON-RPC 2.0 request object.');
    const request = value as Record<string, unknown>;
    if (request.jsonrpc !== '2.0') return send(res, 400, id, JSON_RPC_ERRORS.invalidRequest, 'The request must say "jsonrpc": "2.0".');
    if (typeof request.method !== 'string' || request.method === '') return send(res, 400, id, JSON_RPC_ERRORS.invalidRequest, 'The request must name its method (a string).');
    if ('id' in request && request.id !== null && id === null) {
      return send(res, 400, null, JSON_RPC_ERRORS.invalidRequest, 'The request id must be a string, an integer or null.');
    }
    if ('params' in request && (request.params === null || typeof request.params !== 'object')) {
      return send(res, 200, id, JSON_RPC_ERRORS.invalidParams, 'The params must be an object.');
    }
    next();
  };
}

/** The handlers in order: key, body, envelope. */
export function jsonRpcGate(options: GateOptions): RequestHandler[] {
  return [authenticate(options), body, envelope(options)];
}

/** The caller the gate put on the request. */
export function callerOf(req: Request): MachineCaller {
  const caller = (req as CallerRequest).machineCaller;
  if (!caller) throw new Error('The JSON-RPC gate did not run before this handler');
  return caller;
}
