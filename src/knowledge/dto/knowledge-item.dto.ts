/**
 * The knowledge API's wire shapes: what it accepts (parsed from an untrusted body) and what it
 * returns (times as ISO strings, as the spec's createdAt / updatedAt / uploadedAt).
 */
import { AppError } from '../../common/app-error';
import { isKnowledgeVertical } from '../../shared/catalog/verticals';
import type { KnowledgeAttachmentView, KnowledgeItemInput, KnowledgeItemWithAttachments, KnowledgeListOptions } from '../knowledge.service';

export interface KnowledgeAttachmentDto {
  id: string;
  name: string;
  type: string;
  size: number;
  content?: string;
  uploadedAt: string;
}

export interface KnowledgeItemDto {
  id: string;
  title: string;
  content: string;
  category: string;
  vertical: string;
  tags: string[];
  attachments: KnowledgeAttachmentDto[];
  createdAt: string;
  updatedAt: string;
}

function attachmentDto(a: KnowledgeAttachmentView): KnowledgeAttachmentDto {
  return { id: a.id, name: a.name, type: a.type, size: a.size, ...(a.content !== undefined ? { content: a.content } : {}), uploadedAt: new Date(a.uploadedAt).toISOString() };
}

export function toKnowledgeItemDto(item: KnowledgeItemWithAttachments): KnowledgeItemDto {
  return {
    id: item.id,
    title: item.title,
    content: item.content,
    category: item.category,
    vertical: item.vertical,
    tags: item.tags,
    attachments: item.attachments.map(attachmentDto),
    createdAt: new Date(item.createdAt).toISOString(),
    updatedAt: new Date(item.updatedAt).toISOString(),
  };
}

/** The body of POST and PUT: shape checks here, value rules in the service. */
export function parseKnowledgeItemBody(body: unknown): KnowledgeItemInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('validation_failed', 'The request body must be a knowledge item object.');
  }
  const b = body as Record<string, unknown>;
  for (const field of ['title', 'content', 'category', 'vertical'] as const) {
    if (b[field] !== undefined && b[field] !== null && typeof b[field] !== 'string') {
      throw new AppError('validation_failed', `"${field}" must be text.`);
    }
  }
  if (b.tags !== undefined && b.tags !== null && !Array.isArray(b.tags)) throw new AppError('validation_failed', '"tags" must be a list of text values.');
  if (b.attachments !== undefined && b.attachments !== null && !Array.isArray(b.attachments)) {
    throw new AppError('validation_failed', '"attachments" must be a list.');
  }
  return {
    title: (b.title as string | undefined) ?? '',
    content: (b.content as string | undefined) ?? '',
    category: (b.category as string | undefined) ?? '',
    vertical: (b.vertical as string | undefined) ?? '',
    tags: (b.tags as string[] | undefined) ?? [],
    attachments: (b.attachments as KnowledgeItemInput['attachments']) ?? [],
  };
}

/** GET /api/knowledge query: `vertical` (omitted or 'all' for every vertical) and `search`. */
export function parseListQuery(query: Record<string, unknown>): KnowledgeListOptions {
  const vertical = typeof query.vertical === 'string' && query.vertical !== '' && query.vertical !== 'all' ? query.vertical : undefined;
  if (query.vertical !== undefined && typeof query.vertical !== 'string') throw new AppError('validation_failed', '"vertical" must be given once.');
  if (vertical !== undefined && !isKnowledgeVertical(vertical)) throw new AppError('validation_failed', `Unknown vertical "${vertical.slice(0, 40)}".`);
  if (query.search !== undefined && typeof query.search !== 'string') throw new AppError('validation_failed', '"search" must be given once.');
  const search = typeof query.search === 'string' ? query.search.slice(0, 500) : undefined;
  return { vertical, search: search?.trim() ? search : undefined };
}
