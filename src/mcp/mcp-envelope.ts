/**
 * Checks an MCP request's JSON-RPC shape and its params before the SDK sees it. The SDK answers a
 * message it cannot parse with "Parse error" and a null id, and a known method with wrong params
 * with an internal error that dumps its schema; a client is better told "invalid request" or
 * "invalid params", with the id it sent.
 */
import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError, jsonRpcIdOf, JSON_RPC_ERRORS } from '../protocols/json-rpc-gate';

/** The schema of each request method a client may send, by method name. */
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

export interface McpRefusal {
  status: number;
  body: ReturnType<typeof jsonRpcError>;
}

/** Why `message` cannot be handed to the SDK, or undefined when it can. */
function problemOf(message: unknown): { code: number; message: string } | undefined {
  if (!JSONRPCMessageSchema.safeParse(message).success) {
    return { code: JSON_RPC_ERRORS.invalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, an id, and params and params._meta as objects).' };
  }
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  const schema = typeof method === 'string' && id !== undefined ? REQUEST_SCHEMAS.get(method) : undefined;
  if (!schema) return undefined;
  const parsed = schema.safeParse({ method, params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? issue.path.join('.') : 'params';
  return { code: JSON_RPC_ERRORS.invalidParams, message: `Invalid params for ${method}: ${where}: ${issue.message}` };
}

/** A refusal for a body the SDK would answer badly; undefined to hand it on. */
export function mcpRefusalOf(body: unknown): McpRefusal | undefined {
  if (Array.isArray(body)) {
    const problem = body.map(problemOf).find(Boolean);
    return problem ? { status: 400, body: jsonRpcError(null, JSON_RPC_ERRORS.invalidRequest, `A message of the batch is not valid: ${problem.message}`) } : undefined;
  }
  const problem = problemOf(body);
  if (!problem) return undefined;
  // Wrong params are an answer to a well-formed request (200, as the SDK answers its own errors).
  return { status: problem.code === JSON_RPC_ERRORS.invalidParams ? 200 : 400, body: jsonRpcError(jsonRpcIdOf(body), problem.code, problem.message) };
}
