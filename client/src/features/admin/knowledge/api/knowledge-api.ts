/**
 * The Knowledge API (product-spec section 7 "Knowledge") as the Knowledge Base tab uses it. The
 * shapes mirror the server's (src/knowledge/dto/knowledge-item.dto.ts): the list leaves attachment
 * `content` out, GET /api/knowledge/:id includes it, and a PUT that sends an attachment with its
 * id and no content keeps the stored file.
 */
import { apiRequest } from '../../../../lib/api';

export interface KnowledgeAttachment {
  id: string;
  name: string;
  /** MIME type. */
  type: string;
  /** Bytes. */
  size: number;
  /** A data URL for images, the text otherwise; absent in list results. */
  content?: string;
  uploadedAt: string;
}

export interface KnowledgeItem {
  id: string;
  title: string;
  content: string;
  category: string;
  vertical: string;
  tags: string[];
  attachments: KnowledgeAttachment[];
  createdAt: string;
  updatedAt: string;
}

/** An attachment as sent: new ones carry content and no id; kept ones their id and no content. */
export interface AttachmentInput {
  id?: string;
  name: string;
  type: string;
  size: number;
  content?: string;
}

/** What POST sends and PUT sends (the whole item). */
export interface KnowledgeItemInput {
  title: string;
  content: string;
  category: string;
  vertical: string;
  tags: string[];
  attachments: AttachmentInput[];
}

/** 'all' or a vertical id. */
export type VerticalFilter = string;

export interface ListParams {
  vertical: VerticalFilter;
  search: string;
}

type Data<T> = { success: true; data: T };

export const knowledgeApi = {
  /** `vertical` is omitted for 'all' and `search` when empty (product-spec section 7). */
  async list({ vertical, search }: ListParams, signal?: AbortSignal): Promise<KnowledgeItem[]> {
    const query = { vertical: vertical === 'all' ? undefined : vertical, search: search.trim() === '' ? undefined : search };
    return (await apiRequest<Data<KnowledgeItem[]>>('/api/knowledge', { query, signal })).data;
  },
  async get(id: string, signal?: AbortSignal): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>(`/api/knowledge/${encodeURIComponent(id)}`, { signal })).data;
  },
  async create(item: KnowledgeItemInput): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>('/api/knowledge', { method: 'POST', body: item })).data;
  },
  async update(id: string, item: KnowledgeItemInput): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>(`/api/knowledge/${encodeURIComponent(id)}`, { method: 'PUT', body: item })).data;
  },
  async remove(id: string): Promise<void> {
    await apiRequest(`/api/knowledge/${encodeURIComponent(id)}`, { method: 'DELETE' });
  },
};

export const KNOWLEDGE_QUERY_KEY = ['admin', 'knowledge'] as const;
export const listQueryKey = (params: ListParams) => [...KNOWLEDGE_QUERY_KEY, 'list', params] as const;
export const itemQueryKey = (id: string) => [...KNOWLEDGE_QUERY_KEY, 'item', id] as const;
