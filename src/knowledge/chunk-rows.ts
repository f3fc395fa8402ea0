/**
 * The rows an item is indexed as: its content and each text attachment chunked (chunker.ts) into
 * knowledge_chunks rows, written with multi-row INSERTs (the index triggers index them).
 */
import type { EntityManager } from 'typeorm';
import { chunkContent, chunkStream } from './chunker';
import type { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import type { KnowledgeItem } from './knowledge-item.entity';
import { jurisdictionKey } from '../retrieval/jurisdiction';

/** Rows per multi-row INSERT of chunks (6 parameters each: well under SQLite's limit of 32,766). */
const CHUNK_INSERT_BATCH = 1000;

/** A knowledge_chunks row to insert. */
export type ChunkRowInput = Pick<KnowledgeChunk, 'itemId' | 'ord' | 'vertical' | 'jurisdiction' | 'title' | 'text' | 'tokenCount'>;

/**
 * The texts an item is chunked from: its content, then each text attachment's, each chunked on its
 * own (an attachment's passages never join the item's) and named by the attachment's file name
 * (their heading path starts with it).
 */
export function textsOf(item: KnowledgeItem, attachments: KnowledgeAttachment[]): { text: string; headingPath: string[] }[] {
  return [{ text: item.content, headingPath: [] }, ...attachments.filter((a) => !a.type.startsWith('image/')).map((a) => ({ text: a.content, headingPath: [a.name] }))];
}

/** The chunks of an item: its content's, then each text attachment's, numbered in that order. */
export function chunkRowsOf(item: KnowledgeItem, attachments: KnowledgeAttachment[]): ChunkRowInput[] {
  const pieces = textsOf(item, attachments).flatMap(({ text, headingPath }, i) => (i > 0 && text.trim() === '' ? [] : chunkContent(text, { headingPath })));
  return pieces.map((chunk, ord) => ({
    itemId: item.id,
    ord,
    vertical: item.vertical,
    jurisdiction: jurisdictionKey(item.jurisdiction, item.subRegion),
    title: item.title,
    text: chunk.text,
    tokenCount: chunk.tokenCount,
  }));
}

/** chunkRowsOf, one row at a time (chunkStream): for indexing a large item in slices. */
export function* chunkRowStream(item: KnowledgeItem, attachments: KnowledgeAttachment[]): Generator<ChunkRowInput> {
  let ord = 0;
  const jurisdiction = jurisdictionKey(item.jurisdiction, item.subRegion);
  for (const [i, { text, headingPath }] of textsOf(item, attachments).entries()) {
    if (i > 0 && text.trim() === '') continue;
    for (const chunk of chunkStream(text, { headingPath })) {
      yield { itemId: item.id, ord: ord++, vertical: item.vertical, jurisdiction, title: item.title, text: chunk.text, tokenCount: chunk.tokenCount };
    }
  }
}

/** Characters of the texts an item is chunked from. */
export function indexedChars(item: KnowledgeItem, attachments: KnowledgeAttachment[]): number {
  return attachments.reduce((n, a) => n + (a.type.startsWith('image/') ? 0 : a.content.length), item.content.length);
}

/**
 * Multi-row INSERTs. On Postgres the index triggers run once per statement and append each
 * (term, block) row once for all the chunks of the statement, so one statement for many items
 * (createMany) costs far less than one per item.
 */
export async function insertChunkRows(manager: EntityManager, rows: ChunkRowInput[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK_INSERT_BATCH) {
    await manager
      .createQueryBuilder()
      .insert()
      .into(KnowledgeChunk)
      .values(rows.slice(i, i + CHUNK_INSERT_BATCH))
      .updateEntity(false)
      .execute();
  }
}
