/**
 * The A2A endpoints, as Express handlers mounted before the app's own body parsing (app.factory):
 * GET /.well-known/agent-card.json (public), and POST /a2a (JSON-RPC, an API key with the `a2a`
 * scope) handled by the official SDK's JSON-RPC transport over A2aRequestHandler. Requests that
 * send `A2A-Version: 1.0` use the 1.0 method names (SendMessage, GetTask, ...); requests without
 * the header are 0.3 requests (message/send, tasks/get, ...), served by the SDK's compatibility layer.
 */
import { Injectable } from '@nestjs/common';
import { AgentCard } from '@a2a-js/sdk';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { Router, type Request, type Response } from 'express';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { callerOf, jsonRpcError, jsonRpcGate, JSON_RPC_ERRORS, refusalOf } from '../protocols/json-rpc-gate';
import { A2aCaller, A2aRequestHandler } from './a2a-handler';
import { A2A_PATH, agentCard } from './agent-card';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Scheme and host the caller reached this server at (through the proxy, as TRUST_PROXY allows). */
export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

@Injectable()
export class A2aHttp {
  readonly router: Router;

  constructor(handler: A2aRequestHandler, keys: ApiKeysService) {
    const router = Router();
    router.get(AGENT_CARD_PATH, (req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.json(AgentCard.toJSON(agentCard(baseUrlOf(req), handler.enabledVerticals())));
    });
    const rpc = jsonRpcHandler({
      requestHandler: handler,
      userBuilder: async (req: Request) => new A2aCaller(callerOf(req)),
      legacyCompat: { enabled: true },
    });
    router.post(A2A_PATH, ...jsonRpcGate({ scope: 'a2a', keys, batches: 'refuse', realm: 'a2a' }), (req: Request, res: Response, next) => {
      // The SDK's router answers at its own root.
      req.url = '/';
      sendRefusalsAsTheGateDoes(req, res);
      rpc(req, res, next);
    });
    router.all(A2A_PATH, (_req: Request, res: Response) => {
      res.setHeader('Allow', 'POST');
      res.status(405).json(jsonRpcError(null, JSON_RPC_ERRORS.invalidRequest, 'A2A requests are JSON-RPC over POST.'));
    });
    this.router = router;
  }
}

/**
 * The SDK sends every JSON-RPC error with HTTP 200 and without its data. A refusal the handler
 * noted on the caller goes out as the gate's do: with `error.data.code`, and past a rate limit
 * (`rate_limited`) as 429 with Retry-After.
 */
function sendRefusalsAsTheGateDoes(req: Request, res: Response): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const refusal = callerOf(req).refusal;
    const error = (body as { error?: Record<string, unknown> } | null)?.error;
    if (!refusal || !error || res.headersSent) return json(body);
    const { status, retryAfterSeconds, data } = refusalOf(refusal);
    if (refusal.code === 'rate_limited') {
      res.status(status);
      if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
    }
    return json({ ...(body as object), error: { ...error, data } });
  };
}
