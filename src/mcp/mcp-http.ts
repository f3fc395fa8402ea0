/**
 * The MCP server at /mcp (the official TypeScript SDK, Streamable HTTP transport, stateless: no
 * session, each POST is answered on its own, so any server of the cluster answers any request).
 * It serves the protocol revisions the SDK negotiates (MCP_PROTOCOL_REVISIONS in
 * protocols/mcp-revisions, newest first).
 *
 * Read-only:
 * - tool `search_knowledge` (query, vertical, jurisdiction, limit): the knowledge items that match,
 *   each with its id, title, best passage, score and URL;
 * - tool `get_article` (id): an item as Markdown;
 * - tool `ask_assistant` (question, vertical, language, jurisdiction): the grounded answer and its
 *   sources, through the chat pipeline (rate limits, budgets, a usage event with channel `mcp`);
 * - resources `kb://articles/{id}`: each item as Markdown.
 *
 * Callers need an API key with the `mcp` scope. A request that carries an Origin (a browser page)
 * must come from this server's own origin or one of CORS_ORIGINS: another site's page cannot use
 * the endpoint through a visitor's browser (DNS rebinding).
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ReplyStreamService } from '../conversations/reply-streams';
import { visitorKeyOf, type Visitor } from '../conversations/visitor-identity';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { ChatLimitsService } from '../limits/chat-limits.service';
import { findSubRegion, getJurisdiction } from '../shared/catalog/jurisdictions';
import { KNOWLEDGE_VERTICAL_IDS } from '../shared/catalog/verticals';
import { InteractRequestSchema, MAX_QUERY_CHARS } from '../shared/contracts/chat';
import { firstProblem } from '../shared/contracts/rules';
import { toChatRequest } from '../chat/chat-request';
import { ChatService } from '../chat/chat.service';
import { baseUrlOf } from '../a2a/a2a-http';
import { mcpRefusalOf } from './mcp-envelope';

/** The MCP error code of a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
import { callerOf, jsonRpcError, jsonRpcGate, jsonRpcIdOf, JSON_RPC_ERRORS, type MachineCaller } from '../protocols/json-rpc-gate';

export const MCP_PATH = '/mcp';
const SEARCH_LIMIT_MAX = 20;
/** Items a resources/list names (the newest first). */
const RESOURCE_LIST_MAX = 500;

const verticalSchema = z.enum(KNOWLEDGE_VERTICAL_IDS as unknown as [string, ...string[]]);

const sourceShape = {
  id: z.string(),
  title: z.string(),
  passage: z.string(),
  score: z.number(),
  url: z.string(),
};

/** The item's Markdown: its title as a heading, then its text. */
function markdownOf(item: { title: string; content: string }): string {
  return `# ${item.title}\n\n${item.content}`;
}

function toolError(message: string) {
  return { isError: true, content: [{ type: 'text' as const, text: message }] };
}

@Injectable()
export class McpHttp {
  readonly router: Router;
  private readonly logger = new Logger('Mcp');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly knowledge: KnowledgeService,
    private readonly chat: ChatService,
    private readonly streams: ReplyStreamService,
    private readonly limits: ChatLimitsService,
    keys: ApiKeysService,
  ) {
    const router = Router();
    router.all(MCP_PATH, (req: Request, res: Response, next: NextFunction) => this.checkOrigin(req, res, next));
    router.post(MCP_PATH, ...jsonRpcGate({ scope: 'mcp', keys, batches: 'pass', realm: 'mcp' }), (req: Request, res: Response) => void this.handle(req, res));
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    router.all(MCP_PATH, (_req: Request, res: Response) => {
      res.setHeader('Allow', 'POST');
      res.status(405).json(jsonRpcError(null, JSON_RPC_ERRORS.invalidRequest, 'This MCP server is stateless: send each request as a POST.'));
    });
    this.router = router;
  }

  private checkOrigin(req: Request, res: Response, next: NextFunction): void {
    const origin = req.header('origin');
    if (origin === undefined || origin === baseUrlOf(req) || this.config.corsOrigins.includes(origin)) return next();
    res.status(403).json(jsonRpcError(null, JSON_RPC_ERRORS.serverError, `Requests from ${origin.slice(0, 200)} are not allowed.`, { code: 'forbidden_origin' }));
  }

  /** One request, one server and transport (nothing is kept between requests). */
  private async handle(req: Request, res: Response): Promise<void> {
    // Streamable HTTP: a client must accept both answers the server may give. The SDK refuses
    // otherwise too, but without the request's id; this refusal carries it.
    const accept = req.header('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      res.status(406).json(
        jsonRpcError(jsonRpcIdOf(req.body), JSON_RPC_ERRORS.serverError, 'Not acceptable: the Accept header must list both application/json and text/event-stream.'),
      );
      return;
    }
    // A body of another type goes on to the SDK, which says which types it accepts.
    const refusal = req.is('application/json') || req.is('application/*+json') ? mcpRefusalOf(req.body) : undefined;
    if (refusal) {
      res.status(refusal.status).json(refusal.body);
      return;
    }
    const caller = callerOf(req);
    const server = this.serverFor(caller, baseUrlOf(req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      this.logger.error('MCP request failed', error instanceof Error ? error.stack : String(error));
      if (!res.headersSent) res.status(500).json(jsonRpcError(null, JSON_RPC_ERRORS.internalError, 'The request could not be handled.'));
    }
  }

  private serverFor(caller: MachineCaller, baseUrl: string): McpServer {
    const server = new McpServer(
      { name: 'support-assistant', title: 'Support Assistant', version: process.env.npm_package_version ?? '0.1.0' },
      {
        instructions:
          'Search the support knowledge base (search_knowledge), read an article (get_article or the kb://articles/{id} resource), or ask the support assistant for a grounded answer with sources (ask_assistant). Verticals: customer-service, hr, legal (needs a jurisdiction), sales.',
      },
    );
    const urlOf = (id: string) => `${baseUrl}/api/public/knowledge/${encodeURIComponent(id)}`;

    server.registerTool(
      'search_knowledge',
      {
        title: 'Search the knowledge base',
        description: 'The knowledge items that best match a query, each with its best passage, a relevance score (1 for the best) and its URL.',
        inputSchema: {
          query: z.string().trim().min(1).max(MAX_QUERY_CHARS).describe('What to look for'),
          vertical: verticalSchema.optional().describe('Only items of this topic'),
          jurisdiction: z.string().max(120).optional().describe('Legal: a jurisdiction code ("US"), optionally with a sub-region ("US/California"); general items are included'),
          limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe(`At most this many results (default 5, at most ${SEARCH_LIMIT_MAX})`),
        },
        outputSchema: { results: z.array(z.object(sourceShape)) },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ query, vertical, jurisdiction, limit }) => {
        const scope = jurisdiction ? jurisdictionOf(jurisdiction) : undefined;
        if (jurisdiction && !scope) return toolError(`Unknown jurisdiction: ${jurisdiction}.`);
        const found = await this.knowledge.retrieve(query, { vertical, limit: limit ?? 5, ...(scope ? { jurisdiction: scope } : {}) });
        const results = found.sources.map((s) => ({ id: s.id, title: s.title, passage: s.passage ?? '', score: Math.round(s.score * 1000) / 1000, url: urlOf(s.id) }));
        const text = results.length === 0 ? 'Nothing in the knowledge base matches.' : results.map((r) => `- ${r.title} (${r.id}, score ${r.score})\n  ${r.passage.slice(0, 300)}`).join('\n');
        return { content: [{ type: 'text', text }], structuredContent: { results } };
      },
    );

    server.registerTool(
      'get_article',
      {
        title: 'Read a knowledge article',
        description: 'A knowledge item as Markdown, by its id (from search_knowledge or a source of ask_assistant).',
        inputSchema: { id: z.string().min(1).max(100).describe('The item id') },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ id }) => {
        const item = await this.knowledge.getPublic(id).catch(() => undefined);
        if (!item) return toolError(`There is no article ${id}.`);
        return { content: [{ type: 'text', text: markdownOf(item) }, { type: 'resource_link', uri: `kb://articles/${item.id}`, name: item.title, mimeType: 'text/markdown' }] };
      },
    );

    server.registerTool(
      'ask_assistant',
      {
        title: 'Ask the support assistant',
        description: 'The assistant’s answer to a question, grounded in the knowledge base, with the sources it drew on.',
        inputSchema: {
          question: z.string().describe('The question'),
          vertical: verticalSchema.describe('The topic: customer-service, hr, legal or sales'),
          language: z.string().max(40).optional().describe('The reply language (English name or code); default: the question’s'),
          jurisdiction: z.string().max(10).optional().describe('Legal: the jurisdiction code, e.g. "US"'),
          subJurisdiction: z.string().max(100).optional().describe('Legal: the sub-region where laws differ inside the jurisdiction, e.g. "California"'),
        },
        outputSchema: { answer: z.string(), sources: z.array(z.object(sourceShape)), confidence: z.number(), vertical: z.string(), replyId: z.string() },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ question, vertical, language, jurisdiction, subJurisdiction }, extra) => {
        const parsed = InteractRequestSchema.safeParse({ query: question, vertical, preferredLanguage: language, jurisdiction, subJurisdiction });
        if (!parsed.success) return toolError(firstProblem(parsed.error).message);
        const request = toChatRequest(parsed.data);
        // Stateless: each question is a conversation of its own (no earlier question in its prompt).
        const visitor: Visitor = { key: visitorKeyOf(`mcp:${caller.apiKey.id}:${randomUUID()}`), returning: false };
        try {
          this.chat.admit(request);
          const slot = await this.limits.admitMessage({ channel: 'mcp', ip: caller.ip, visitorKey: visitor.key, apiKeyId: caller.apiKey.id });
          const started = this.chat.start(request, { requestId: caller.requestId, channel: 'mcp', visitor, slot });
          // A client that cancels the call (or goes away) stops the reply and its provider call.
          const stop = () => void this.streams.cancel(started.replyId, visitor.key).catch(() => undefined);
          extra.signal.addEventListener('abort', stop);
          caller.gone.addEventListener('abort', stop);
          const data = await started.result.finally(() => {
            extra.signal.removeEventListener('abort', stop);
            caller.gone.removeEventListener('abort', stop);
          });
          const sources = data.sources.map((s) => ({ id: s.id, title: s.title, passage: s.passage ?? '', score: Math.round(s.score * 1000) / 1000, url: urlOf(s.id) }));
          const listed = sources.length > 0 ? `\n\nSources:\n${sources.map((s) => `- ${s.title} (${s.url})`).join('\n')}` : '';
          return {
            content: [{ type: 'text', text: `${data.response}${listed}` }],
            structuredContent: { answer: data.response, sources, confidence: data.confidence, vertical: data.vertical, replyId: data.replyId ?? started.replyId },
          };
        } catch (error) {
          if (error instanceof AppError) return toolError(error.message);
          throw error;
        }
      },
    );

    server.registerResource(
      'article',
      new ResourceTemplate('kb://articles/{id}', {
        list: async () => {
          const items = await this.knowledge.list();
          return {
            resources: items.slice(0, RESOURCE_LIST_MAX).map((item) => ({ uri: `kb://articles/${item.id}`, name: item.title, mimeType: 'text/markdown' })),
          };
        },
      }),
      { title: 'Knowledge article', description: 'A knowledge item as Markdown.', mimeType: 'text/markdown' },
      async (uri, variables) => {
        const id = String(Array.isArray(variables.id) ? variables.id[0] : variables.id);
        const item = await this.knowledge.getPublic(decodedOrAsIs(id)).catch(() => undefined);
        // MCP's "resource not found" error (-32002), not an internal error.
        if (!item) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: there is no article ${id.slice(0, 100)}.`, { uri: uri.href.slice(0, 200) });
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: markdownOf(item) }] };
      },
    );
    return server;
  }
}

/** `%`-escapes decoded; a malformed escape ("%", "%zz") leaves the text as it came. */
function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** "US" or "US/California" as the retrieval's jurisdiction scope, if the catalog knows it. */
function jurisdictionOf(value: string): { code: string; subRegion?: string } | undefined {
  const [code, sub] = value.split('/', 2);
  const found = getJurisdiction(code);
  if (!found) return undefined;
  if (!sub) return { code: found.code };
  const subRegion = findSubRegion(found, sub);
  return subRegion ? { code: found.code, subRegion } : undefined;
}
