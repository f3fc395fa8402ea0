/**
 * The Knowledge API as the Knowledge Base tab uses it. The
 * shapes are the server's contracts (src/shared/contracts/knowledge.ts): the list leaves attachment
 * `content` out, GET /api/knowledge/:id includes it, and a PUT that sends an attachment with its
 * id and no content keeps the stored file.
 */
import { KnowledgeItemInputSchema, type KnowledgeAttachment, type KnowledgeItem, type KnowledgeItemInput } from '@shared/contracts/knowledge';
import { type ImportedFile, type SiteImport, type SiteImportRequest, SiteImportRequestSchema } from '@shared/contracts/knowledge-import';
import { apiRequest, contractError } from '../../../../lib/api';

export type { KnowledgeAttachment, KnowledgeItem, KnowledgeItemInput };
/** An attachment as sent: new ones carry content and no id; kept ones their id and no content. */
export type AttachmentInput = NonNullable<KnowledgeItemInput['attachments']>[number];

/**
 * Checks an item with the server's contract before it is sent, except a blank title: there is no
 * client-side required-field check, so the server's 'Title is required' is what the admin reads.
 */
function checked(item: KnowledgeItemInput): KnowledgeItemInput {
  const refused = item.title.trim() === '' ? undefined : contractError(KnowledgeItemInputSchema, item);
  if (refused) throw refused;
  return item;
}

/** 'all' or a vertical id. */
export type VerticalFilter = string;

export interface ListParams {
  vertical: VerticalFilter;
  search: string;
  /** Legal only: 'all' (or absent), 'none' for general items, or a jurisdiction code. */
  jurisdiction?: string;
  /** With a jurisdiction: one of its sub-regions ('' or absent: any). */
  subRegion?: string;
}

import type { SuccessEnvelope as Data } from '@shared/contracts/http';

export const knowledgeApi = {
  /** `vertical` is omitted for 'all' and `search` when empty. */
  async list({ vertical, search, jurisdiction, subRegion }: ListParams, signal?: AbortSignal): Promise<KnowledgeItem[]> {
    const scoped = jurisdiction !== undefined && jurisdiction !== 'all';
    const query = {
      vertical: vertical === 'all' ? undefined : vertical,
      search: search.trim() === '' ? undefined : search,
      jurisdiction: scoped ? jurisdiction : undefined,
      subRegion: scoped && jurisdiction !== 'none' && subRegion ? subRegion : undefined,
    };
    return (await apiRequest<Data<KnowledgeItem[]>>('/api/knowledge', { query, signal })).data;
  },
  async get(id: string, signal?: AbortSignal): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>(`/api/knowledge/${encodeURIComponent(id)}`, { signal })).data;
  },
  async create(item: KnowledgeItemInput): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>('/api/knowledge', { method: 'POST', body: checked(item) })).data;
  },
  async update(id: string, item: KnowledgeItemInput): Promise<KnowledgeItem> {
    return (await apiRequest<Data<KnowledgeItem>>(`/api/knowledge/${encodeURIComponent(id)}`, { method: 'PUT', body: checked(item) })).data;
  },
  /**
   * Converts a file on the server (DOCX, Markdown, HTML, CSV, XLSX, TXT, JSON, PDF) to Markdown
   * items; with `preview` nothing is stored (the review step and supporting documents).
   */
  async importFile(file: File, params: { vertical: string; category?: string; preview?: boolean }): Promise<ImportedFile> {
    const form = new FormData();
    form.append('file', file, file.name);
    const query = { vertical: params.vertical, category: params.category, preview: params.preview ? 'true' : undefined };
    return (await apiRequest<Data<ImportedFile>>('/api/knowledge/import/file', { method: 'POST', form, query })).data;
  },
  async remove(id: string): Promise<void> {
    await apiRequest(`/api/knowledge/${encodeURIComponent(id)}`, { method: 'DELETE' });
  },
};

/** Website imports: start one, follow its progress, cancel, resume or re-sync it. */
export const siteImportApi = {
  async list(signal?: AbortSignal): Promise<SiteImport[]> {
    return (await apiRequest<Data<SiteImport[]>>('/api/knowledge/import/site', { signal })).data;
  },
  async start(request: SiteImportRequest): Promise<SiteImport> {
    const refused = contractError(SiteImportRequestSchema, request);
    if (refused) throw refused;
    return (await apiRequest<Data<SiteImport>>('/api/knowledge/import/site', { method: 'POST', body: request })).data;
  },
  async act(id: string, action: 'cancel' | 'resume' | 'resync'): Promise<SiteImport> {
    return (await apiRequest<Data<SiteImport>>(`/api/knowledge/import/site/${encodeURIComponent(id)}/${action}`, { method: 'POST' })).data;
  },
};
export type { SiteImport };
export const SITE_IMPORTS_QUERY_KEY = ['admin', 'knowledge', 'site-imports'] as const;

export const KNOWLEDGE_QUERY_KEY = ['admin', 'knowledge'] as const;
export const listQueryKey = (params: ListParams) => [...KNOWLEDGE_QUERY_KEY, 'list', params] as const;
export const itemQueryKey = (id: string) => [...KNOWLEDGE_QUERY_KEY, 'item', id] as const;
