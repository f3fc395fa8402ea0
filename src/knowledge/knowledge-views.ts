/** Knowledge items and attachments as the API returns them (times as ISO text). */
import type { KnowledgeAttachment as KnowledgeAttachmentView, KnowledgeItem as KnowledgeItemView } from '../shared/contracts/knowledge';
import { EARLIEST_DATE_MS, LATEST_DATE_MS } from '../shared/contracts/rules';
import type { KnowledgeAttachment } from './knowledge-attachment.entity';
import type { KnowledgeItem } from './knowledge-item.entity';

/**
 * An epoch-ms column as ISO text. Rows stored before dates were bounded (an attachment's
 * uploadedAt could be 8.64e15 + 1, which no Date can print) fall back to `fallback`, so one bad
 * row cannot make every list fail.
 */
export function isoOf(ms: number, fallback: number): string {
  return new Date(ms >= EARLIEST_DATE_MS && ms <= LATEST_DATE_MS ? ms : fallback).toISOString();
}

export function viewOfAttachment(a: Pick<KnowledgeAttachment, 'id' | 'name' | 'type' | 'size' | 'uploadedAt'> & { content?: string }, fallback: number): KnowledgeAttachmentView {
  return { id: a.id, name: a.name, type: a.type, size: a.size, ...(a.content !== undefined ? { content: a.content } : {}), uploadedAt: isoOf(a.uploadedAt, fallback) };
}

/** The item as the API returns it (times as ISO text). */
export function viewOf(item: KnowledgeItem, attachments: KnowledgeAttachmentView[]): KnowledgeItemView {
  return {
    id: item.id,
    title: item.title,
    content: item.content,
    category: item.category,
    vertical: item.vertical,
    tags: item.tags,
    attachments,
    jurisdiction: item.jurisdiction ?? null,
    subRegion: item.subRegion ?? null,
    url: item.sourceUrl ?? null,
    createdAt: new Date(item.createdAt).toISOString(),
    updatedAt: new Date(item.updatedAt).toISOString(),
  };
}
