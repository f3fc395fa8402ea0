/**
 * One decorator per route ties it to its contract (zod schemas in src/shared/contracts): the
 * request body and query are validated with them before the handler runs (a refusal is the usual
 * error envelope, with the code and message of `firstProblem`), and the OpenAPI document
 * (common/openapi.ts) describes the route from the same schemas.
 *
 *   @Post()
 *   @Contract({ summary: 'Create a knowledge item', body: KnowledgeItemInputSchema, data: KnowledgeItemSchema, status: 201 })
 *   create(@Body() item: CheckedKnowledgeItem) { ... }
 *
 * The handler receives the parsed value (trimmed, defaults filled, unknown fields dropped).
 */
import { applyDecorators, ArgumentMetadata, HttpCode, Injectable, PipeTransform, SetMetadata, UsePipes } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { z } from 'zod';
import { firstProblem } from '../shared/contracts/rules';
import { AppError } from './app-error';

/** A schema the document names: it carries `.meta({ id })`. */
type NamedSchema = z.ZodType;

export interface RouteContract {
  summary: string;
  description?: string;
  /** The JSON body. */
  body?: NamedSchema;
  /** The query string, an object schema whose fields are the parameters. */
  query?: z.ZodObject | z.ZodType;
  /** The success body is `{ success: true, data }` with this data ([schema] for a list). */
  data?: NamedSchema | [NamedSchema];
  /** The whole success body, when it is not the plain envelope. */
  response?: NamedSchema;
  /** Other success representations by media type (a stream, a download). */
  content?: Record<string, { schema?: NamedSchema; description: string }>;
  /** The success status (default 200). */
  status?: number;
  /** Error statuses worth naming besides 400 for bad input (401 is added for private routes). */
  errors?: number[];
}

export const CONTRACT = 'api:contract';

/** Schemas by direction, for the OpenAPI document (requests are described as sent, replies as sent back). */
export const CONTRACT_SCHEMAS = { requests: new Set<z.ZodType>(), replies: new Set<z.ZodType>() };

const componentRef = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${idOf(schema)}` });

export function idOf(schema: z.ZodType): string {
  const id = (schema.meta() as { id?: string } | undefined)?.id;
  if (!id) throw new Error('A contract schema needs a name: add .meta({ id }) to it in src/shared/contracts');
  return id;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is not valid (error.message says what to fix).',
  401: 'No valid admin session.',
  403: 'Not allowed (another origin, or an email that may not sign in).',
  404: 'Not found.',
  409: 'Conflicts with what exists.',
  410: 'No longer usable (used, withdrawn or expired).',
  413: 'Too large.',
  415: 'Unsupported media type.',
  429: 'Too many requests; see Retry-After.',
  503: 'A dependency is down, or the server is restarting.',
};

/** Validates the body and query of a route with its contract; leaves other parameters alone. */
@Injectable()
export class ContractPipe implements PipeTransform {
  constructor(private readonly contract: Pick<RouteContract, 'body' | 'query'>) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const schema = metadata.type === 'body' ? this.contract.body : metadata.type === 'query' && metadata.data === undefined ? this.contract.query : undefined;
    if (!schema) return value;
    const result = schema.safeParse(value ?? (metadata.type === 'query' ? {} : undefined));
    if (result.success) return result.data;
    const problem = firstProblem(result.error);
    throw new AppError(problem.code, problem.message);
  }
}

export function Contract(contract: RouteContract): MethodDecorator {
  const status = contract.status ?? 200;
  const decorators: MethodDecorator[] = [
    SetMetadata(CONTRACT, contract),
    UsePipes(new ContractPipe(contract)),
    ApiOperation({ summary: contract.summary, description: contract.description }),
  ];
  if (contract.status) decorators.push(HttpCode(contract.status));
  if (contract.body) {
    CONTRACT_SCHEMAS.requests.add(contract.body);
    decorators.push(ApiBody({ required: true, schema: componentRef(contract.body) }));
  }
  if (contract.query) {
    CONTRACT_SCHEMAS.requests.add(contract.query);
    decorators.push(...queryParameters(contract.query));
  }
  const content: Record<string, { schema: object }> = {};
  if (contract.data) {
    const item = Array.isArray(contract.data) ? contract.data[0] : contract.data;
    CONTRACT_SCHEMAS.replies.add(item);
    const data = Array.isArray(contract.data) ? { type: 'array', items: componentRef(item) } : componentRef(item);
    content['application/json'] = { schema: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data } } };
  }
  if (contract.response) {
    CONTRACT_SCHEMAS.replies.add(contract.response);
    content['application/json'] = { schema: componentRef(contract.response) };
  }
  const descriptions: string[] = [];
  for (const [type, entry] of Object.entries(contract.content ?? {})) {
    if (entry.schema) CONTRACT_SCHEMAS.replies.add(entry.schema);
    content[type] = { schema: entry.schema ? componentRef(entry.schema) : { type: 'string' } };
    descriptions.push(`${type}: ${entry.description}`);
  }
  decorators.push(ApiResponse({ status, description: descriptions.join(' ') || 'Success.', content }));
  const errors = new Set([...(contract.body || contract.query ? [400] : []), ...(contract.errors ?? [])]);
  for (const code of errors) {
    decorators.push(ApiResponse({ status: code, description: ERROR_TEXT[code] ?? 'Error.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } }));
  }
  return applyDecorators(...decorators);
}

/** The query schema's fields as OpenAPI parameters (described lazily, from the schema's metadata). */
function queryParameters(schema: z.ZodType): MethodDecorator[] {
  const shape = (schema as z.ZodObject).shape as Record<string, z.ZodType> | undefined;
  if (!shape) throw new Error('A query contract must be an object schema');
  return Object.entries(shape).map(([name, field]) =>
    ApiQuery({
      name,
      required: !field.safeParse(undefined).success,
      description: (field.meta() as { description?: string } | undefined)?.description,
      schema: { $ref: `#/components/schemas/${idOf(schema)}/properties/${name}` },
    }),
  );
}
